// The minimal handlers: the same work as the API's refresh, /me and mail requests with nothing else (no framework,
// no ORM, no validation library, no logging), on bare node:http and a raw `pg` pool. Their req/s on
// this machine is the ceiling the API's rows are divided by. Started as a child by bench/run.ts.
import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { sha256Hex } from '../lib/database';
import { accessClaims, signJwt, verifyJwt } from '../lib/jwt';

const env = (name: string) => process.env[name] ?? fail(`${name} is required`);
const privateKey = createPrivateKey(readFileSync(env('MINIMAL_PRIVATE_KEY_FILE')));
const publicKey = createPublicKey(privateKey);
const projectId = env('MINIMAL_PROJECT_ID');
// The same pool size as the API's (pg's default, 10).
const pool = new Pool({ connectionString: env('DATABASE_URL'), options: `-c search_path=${env('MINIMAL_SCHEMA')}`, max: 10 });

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => send(res, 500, { error: 'internal_error', message: String(error) }));
});
server.keepAliveTimeout = 65_000;
// The mail request's tables, copied (columns, checks, indexes) so its rows never reach the API's outbox worker:
// one outbox whose mails stay queued (the request alone) and one this server delivers (request and delivery).
const mailDir = env('MINIMAL_MAIL_DIR');
mkdirSync(mailDir, { recursive: true, mode: 0o700 });
void pool
  .query(
    `CREATE TABLE IF NOT EXISTS minimal_one_time_tokens (LIKE one_time_tokens INCLUDING ALL);
     CREATE TABLE IF NOT EXISTS minimal_mail_outbox (LIKE mail_outbox INCLUDING ALL);
     CREATE TABLE IF NOT EXISTS minimal_delivered_outbox (LIKE mail_outbox INCLUDING ALL)`,
  )
  .then(() => server.listen(Number(env('PORT')), '127.0.0.1'));
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url === '/hello' || req.url === '/healthz') return send(res, 200, { data: { hello: 'world' } });
  if (req.method === 'POST' && req.url === '/refresh') return refresh(res, (JSON.parse(await readBody(req)) as { refreshToken: string }).refreshToken);
  if (req.method === 'POST' && req.url === '/mail-request') return mailRequest(res, (JSON.parse(await readBody(req)) as { email: string }).email, false);
  if (req.method === 'POST' && req.url === '/mail-request-delivered') return mailRequest(res, (JSON.parse(await readBody(req)) as { email: string }).email, true);
  if (req.method === 'GET' && req.url === '/outbox-depth') return sendText(res, await outboxDepth());
  if (req.method === 'GET' && req.url === '/me') return me(res, /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
  send(res, 404, { error: 'not_found' });
}

/** select + update + insert in one transaction, then an RS256 sign: the refresh rotation, bare. */
async function refresh(res: ServerResponse, presented: string): Promise<void> {
  const client = await pool.connect();
  let row: { session_id: string; user_id: string; email: string; role: string } | undefined;
  const successor = randomBytes(32).toString('base64url');
  try {
    await client.query('BEGIN');
    ({
      rows: [row],
    } = await client.query(
      `SELECT t.session_id, s.user_id, u.email, u.role FROM refresh_tokens t
       JOIN sessions s ON s.project_id = t.project_id AND s.environment = t.environment AND s.id = t.session_id
       JOIN users u ON u.project_id = s.project_id AND u.environment = s.environment AND u.id = s.user_id
       WHERE t.project_id = $1 AND t.environment = 'production' AND t.token_hash = $2
         AND t.used_at IS NULL AND t.expires_at > now() AND s.revoked_at IS NULL
       FOR UPDATE OF t`,
      [projectId, sha256Hex(presented)],
    ));
    if (row) {
      await client.query('UPDATE refresh_tokens SET used_at = now(), successor_hash = $2 WHERE token_hash = $1', [sha256Hex(presented), sha256Hex(successor)]);
      await client.query(
        `INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at)
         VALUES ($1, $2, 'production', $3, now(), now() + interval '60 days')`,
        [sha256Hex(successor), projectId, row.session_id],
      );
    }
    await client.query(row ? 'COMMIT' : 'ROLLBACK');
  } finally {
    client.release();
  }
  if (!row) return send(res, 401, { error: 'invalid_refresh_token' });
  const accessToken = signJwt(accessClaims({ projectId, sub: row.user_id, sid: row.session_id, email: row.email, role: row.role }), privateKey, 'minimal');
  send(res, 200, { data: { accessToken, refreshToken: successor, expiresIn: 900 } });
}

/**
 * A magic-link or reset request, bare: find the user by address, then one transaction that stores
 * the hashed link token and the mail, and answer 200. `deliver`: the mail (its text sealed with
 * AES-256-GCM, as the API seals it) goes to the outbox this server delivers from (see `deliver`);
 * otherwise a random payload goes to one nobody delivers from.
 */
async function mailRequest(res: ServerResponse, email: string, deliver: boolean): Promise<void> {
  const {
    rows: [user],
  } = await pool.query<{ id: string }>(`SELECT id FROM users WHERE project_id = $1 AND environment = 'production' AND email = $2`, [projectId, email]);
  if (user) {
    const token = randomBytes(32).toString('base64url');
    const payload = deliver ? seal(JSON.stringify({ subject: 'Your sign-in link', text: mailText(token), html: `<p><a href="${link(token)}">Sign in</a></p>` })) : randomBytes(600).toString('base64');
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO minimal_one_time_tokens (token_hash, project_id, environment, purpose, user_id, data, created_at, expires_at, consumed_at, failed_attempts)
         VALUES ($1, $2, 'production', 'magic_link', $3, '{}', now(), now() + interval '15 minutes', NULL, 0)`,
        [sha256Hex(token), projectId, user.id],
      );
      await client.query(
        `INSERT INTO ${deliver ? 'minimal_delivered_outbox' : 'minimal_mail_outbox'} (id, project_id, environment, recipient, template, sealed_payload, status, attempts, next_attempt_at, created_at, expires_at)
         VALUES ($1, $2, 'production', $3, 'magic_link', $4, 'pending', 0, now(), now(), now() + interval '15 minutes')`,
        [randomUUID(), projectId, email, payload],
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    if (deliver) wakeDelivery();
  }
  send(res, 200, { data: { sent: true } });
}

const MAIL_KEY = randomBytes(32);
const link = (token: string) => `http://localhost:3000/api/auth/magic-link/verify?token=${token}`;
const mailText = (token: string) => `Sign in with this link (valid for 15 minutes):\n\n${link(token)}\n`;

function seal(text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', MAIL_KEY, iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

function open(sealed: string): { subject: string; text: string; html: string } {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', MAIL_KEY, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'));
}

let delivering = false;
let again = false;

/**
 * The outbox's delivery, bare, as the API's worker does it after each request: claim up to ten
 * due mails (SKIP LOCKED), open each, write it as a plain-text RFC 5322 file (0600, exclusive
 * create), then mark the round's mails sent in one statement; again until a round comes back short.
 */
function wakeDelivery(): void {
  if (delivering) {
    again = true;
    return;
  }
  delivering = true;
  void (async () => {
    try {
      do {
        again = false;
        while ((await deliverRound()) === 10);
      } while (again);
    } finally {
      delivering = false;
    }
  })();
}

async function deliverRound(): Promise<number> {
  const { rows } = await pool.query<{ id: string; recipient: string; sealed_payload: string }>(
    `WITH due AS MATERIALIZED (
       SELECT id FROM minimal_delivered_outbox WHERE status = 'pending' AND next_attempt_at <= now()
       ORDER BY next_attempt_at LIMIT 10 FOR UPDATE SKIP LOCKED)
     UPDATE minimal_delivered_outbox m SET status = 'sending', attempts = m.attempts + 1, lease_until = now() + interval '120 seconds'
     FROM due WHERE m.id = due.id RETURNING m.id, m.recipient, m.sealed_payload`,
  );
  await Promise.all(
    rows.map((row) => {
      const mail = open(row.sealed_payload);
      const message = [
        'From: svc <no-reply@localhost>',
        `To: ${row.recipient}`,
        `Subject: ${mail.subject}`,
        `Message-ID: <${row.id}@svc>`,
        `Date: ${new Date().toUTCString()}`,
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        '',
        mail.text,
      ].join('\n');
      return writeFile(join(mailDir, `${row.id}@svc.eml`), message, { mode: 0o600, flag: 'wx' });
    }),
  );
  if (rows.length > 0) {
    await pool.query(
      `UPDATE minimal_delivered_outbox SET status = 'sent', message_id = '<' || id || '@svc>', sent_at = now(), lease_until = NULL, sealed_payload = NULL
       WHERE id = ANY($1::uuid[])`,
      [rows.map((row) => row.id)],
    );
  }
  return rows.length;
}

/** An RS256 verify and one select (the user joined with its live session): /me, bare. */
async function me(res: ServerResponse, token: string): Promise<void> {
  const claims = verifyJwt(token, publicKey);
  if (!claims || claims.aud !== projectId) return send(res, 401, { error: 'invalid_token' });
  const { rows } = await pool.query(
    `SELECT u.id, u.email, u.role, u.meta, u.email_verified, u.created_at, u.last_login_at FROM users u
     JOIN sessions s ON s.project_id = u.project_id AND s.environment = u.environment AND s.user_id = u.id
     WHERE u.project_id = $1 AND u.environment = 'production' AND u.id = $2 AND s.id = $3 AND s.revoked_at IS NULL`,
    [projectId, claims.sub, claims.sid],
  );
  if (rows.length === 0) return send(res, 401, { error: 'invalid_token' });
  send(res, 200, { data: { user: rows[0] } });
}

/** Mails of the delivered outbox not yet sent (the bench waits for 0 after each row). */
async function outboxDepth(): Promise<string> {
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM minimal_delivered_outbox WHERE status IN ('pending', 'sending')`);
  return rows[0].n;
}

function sendText(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function fail(message: string): never {
  throw new Error(message);
}
