import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Bench } from './context';
import { databaseUrl } from './database';
import { startChild } from './processes';
import * as rows from './rows';
import { stop, track, type RunScope } from './suite-postgres';
import { PASSWORD } from './svc';

const PEER_USERS = 40;

/**
 * better-auth (e-mail and password) in Express on the same PostgreSQL, schema `peer`: sign-up,
 * sign-in and get-session, each beside the same ceiling as ours (scrypt for its password hash).
 */
export async function peerSuite(bench: Bench, scope: RunScope): Promise<void> {
  bench.log('\n== peer: better-auth in Express on PostgreSQL ==');
  let peer;
  try {
    peer = await track(
      scope,
      startChild({
        name: 'better-auth',
        script: 'bench/servers/better-auth-server.ts',
        env: { DATABASE_URL: databaseUrl(scope.database), PEER_SCHEMA: 'peer', PEER_SECRET: randomBytes(32).toString('hex') },
        logFile: join(scope.tmp, 'peer.log'),
      }),
    );
  } catch (error) {
    const reason = `better-auth could not be started, so its rows are missing: ${(error as Error).message.split('\n').slice(0, 6).join(' | ')}`;
    bench.results.notes.push(reason);
    bench.log(`  ${reason}`);
    return;
  }
  try {
    const emails = Array.from({ length: PEER_USERS }, (_, i) => `peer-seed-${i}@example.test`);
    for (let i = 0; i < emails.length; i += 4) await Promise.all(emails.slice(i, i + 4).map((email) => signUp(peer.url, email)));
    const cookie = await signIn(peer.url, emails[0]);
    const scrypt = { name: 'scrypt', perSecond: bench.results.ceilings.scrypt.perSecond };
    const system = 'better-auth · PostgreSQL';
    await bench.row(system, 'sign-up', peer.url, () => rows.peerSignUp(peer.url, Date.now().toString(36)), { ceiling: scrypt });
    await bench.row(system, 'sign-in', peer.url, () => rows.peerSignIn(peer.url, emails), { ceiling: scrypt });
    await bench.series('get-session (better-auth)', system, 'get-session', peer.url, () => rows.get('/api/auth/get-session', { cookie }), bench.ceilingFrom('minimal me', 'me (minimal)'));
  } finally {
    await stop(scope, peer);
  }
}

async function signUp(url: string, email: string): Promise<void> {
  const response = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password: PASSWORD, name: 'Bench' }),
  });
  if (!response.ok) throw new Error(`better-auth sign-up failed: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

/** The session cookie of a sign-in, as a browser would send it back. */
async function signIn(url: string, email: string): Promise<string> {
  const response = await fetch(`${url}/api/auth/sign-in/email`, { method: 'POST', headers: { 'content-type': 'application/json', origin: url }, body: JSON.stringify({ email, password: PASSWORD }) });
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .find((pair) => pair.startsWith('better-auth.session_token='));
  await response.arrayBuffer();
  if (!response.ok || !cookie) throw new Error(`better-auth sign-in failed: ${response.status}`);
  return cookie;
}
