import { EventEmitter } from 'node:events';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger, flushedWithin } from '../src/composition/logger';

/** A logger of the service's writing into `lines`. */
function capturing(lines: string[]) {
  return createLogger({ level: 'info', destination: new Writable({ write: (chunk, _e, done) => void (lines.push(String(chunk)), done()) }) });
}

/** The redaction the logger had before its own censor: pino's `redact` with these paths. */
const PINO_PATHS = [
  ...['password', 'newPassword', 'token', 'refreshToken', 'accessToken', 'apiKey', 'adminToken', 'masterKey', 'secret', 'clientSecret'].flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
  ...['authorization', '["x-api-key"]', 'cookie', '["set-cookie"]'].flatMap((h) => [`headers.${h}`.replace('.[', '['), `*.headers.${h}`.replace('.[', '[')]),
];

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['password', 'token', 'apiKey', 'secret', 'clientSecret', 'headers', 'authorization', 'x-api-key', 'cookie', 'set-cookie', 'user', 'body', 'req', 'items', 'name', 'id', 'accept'];

/** A random log object up to four levels deep, with secret-looking keys and arrays among the rest. */
function randomLine(next: () => number, depth = 0): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const fields = 1 + Math.floor(next() * 4);
  for (let i = 0; i < fields; i += 1) {
    const key = KEYS[Math.floor(next() * KEYS.length)];
    const roll = next();
    if (depth < 4 && roll < 0.35) object[key] = randomLine(next, depth + 1);
    else if (depth < 4 && roll < 0.45) object[key] = [randomLine(next, depth + 2), `v${Math.floor(next() * 1000)}`];
    else object[key] = `v${Math.floor(next() * 1000)}`;
  }
  return object;
}

describe('logger', () => {
  it('censors secret fields and headers wherever they appear', () => {
    const lines: string[] = [];
    const logger = capturing(lines);
    logger.info({
      password: 'pw-top',
      body: { refreshToken: 'rt-nested', user: { password: 'pw-deep' } },
      headers: { authorization: 'Bearer at-header', 'x-api-key': 'svc_live_header', cookie: 'svc_rt=cookie-value', accept: 'application/json' },
      req: { headers: { authorization: 'Bearer at-req', 'x-api-key': 'svc_live_req' } },
      token: 'tok',
      err: { code: 'ECONNREFUSED' },
    });
    const line = lines.join('');
    for (const secret of ['pw-top', 'rt-nested', 'pw-deep', 'at-header', 'svc_live_header', 'cookie-value', 'at-req', 'svc_live_req', '"tok"']) {
      expect(line).not.toContain(secret);
    }
    expect(line).toContain('[redacted]');
    expect(line).toContain('application/json');
    expect(line).toContain('ECONNREFUSED');
  });

  it("censors the same fields as pino's redact paths did, over 2,000 random lines", () => {
    const ours: string[] = [];
    const logger = capturing(ours);
    const theirs: string[] = [];
    const reference = pino(
      { base: null, timestamp: false, redact: { paths: PINO_PATHS, censor: '[redacted]' } },
      new Writable({ write: (chunk, _e, done) => void (theirs.push(String(chunk)), done()) }),
    );
    const next = random(20261126);
    let censored = 0;
    for (let i = 0; i < 2000; i += 1) {
      const line = randomLine(next);
      const before = JSON.stringify(line);
      logger.info(line);
      expect(JSON.stringify(line)).toBe(before); // the caller's object is left as it was
      // A copy: pino's redact writes the censor into some callers' objects (a secret two objects deep under `headers`).
      reference.info(structuredClone(line));
      const { level: _l, time: _t, service: _s, ...mine } = JSON.parse(ours[i]) as Record<string, unknown>;
      const { level: _rl, ...expected } = JSON.parse(theirs[i]) as Record<string, unknown>;
      expect(mine).toEqual(expected);
      if (ours[i].includes('[redacted]')) censored += 1;
    }
    expect(censored).toBeGreaterThan(500); // the lines do hold secrets to censor
  });

  it("censors arrays, errors' own fields and child bindings, and leaves the caller's objects alone", () => {
    const lines: string[] = [];
    const logger = capturing(lines);
    const items = [{ token: 'tok-in-array', id: 'kept-id' }];
    const error = Object.assign(new Error('kept message'), { token: 'tok-on-error', headers: { authorization: 'Bearer hdr-on-error' } });
    logger.info({ items, when: new Date('2026-01-02T03:04:05.000Z') });
    logger.error({ err: error, apiKey: 'key-beside-error' }, 'failed');
    logger.child({ apiKey: 'key-in-binding', scope: 'kept-scope' }).child({ token: 'tok-in-grandchild' }).info('child line');
    const text = lines.join('');
    for (const secret of ['tok-in-array', 'tok-on-error', 'hdr-on-error', 'key-beside-error', 'key-in-binding', 'tok-in-grandchild']) expect(text).not.toContain(secret);
    for (const kept of ['kept-id', '2026-01-02T03:04:05.000Z', 'kept message', 'kept-scope', '"stack"']) expect(text).toContain(kept);
    expect(items[0].token).toBe('tok-in-array');
    expect(error.token).toBe('tok-on-error');
    expect(error.headers.authorization).toBe('Bearer hdr-on-error');
  });
});

describe('logged errors', () => {
  it('keep what failed and drop what was sent: database detail, where, parameters; quoted values blanked', () => {
    const lines: string[] = [];
    const logger = capturing(lines);
    // The shape pg gives a DatabaseError, with TypeORM's wrapper around it.
    const driverError = Object.assign(new Error('invalid input syntax for type uuid: "sent-value-1"'), {
      severity: 'ERROR',
      code: '22P02',
      detail: 'Key (email)=(sent-value-2@example.com) already exists.',
      where: 'JSON data, line 1: {"note":"sent-value-3\\u0000...',
      hint: 'sent-value-4',
      routine: 'string_to_uuid',
      constraint: 'users_scope_email_key',
    });
    const wrapped = Object.assign(new Error('query failed'), { query: 'SELECT 1 WHERE id = $1', parameters: ['sent-value-5'], driverError });
    logger.error({ err: driverError }, 'unhandled error');
    logger.error({ err: wrapped }, 'unhandled error');
    logger.error({ err: new Error('plain "kept" message') }, 'other');
    const text = lines.join('');
    for (let i = 1; i <= 5; i += 1) expect(text).not.toContain(`sent-value-${i}`);
    for (const kept of ['22P02', 'string_to_uuid', 'users_scope_email_key', 'invalid input syntax for type uuid', 'SELECT 1 WHERE id = $1', 'plain \\"kept\\" message']) {
      expect(text).toContain(kept);
    }
    expect(driverError.detail).toContain('sent-value-2'); // the error itself is left as it was
  });
});

describe('the batched log stream', () => {
  /** A timer queue the test runs by hand: what flushedWithin armed, in order. */
  function manualTimers() {
    const queue: (() => void)[] = [];
    const setTimer = (run: () => void) => {
      queue.push(run);
      return { unref: () => undefined };
    };
    return { queue, setTimer, runNext: () => queue.shift()!() };
  }

  /** A batching stream whose writes reach the destination when the test says (its 'write' event). */
  class HeldStream extends EventEmitter {
    readonly lines: string[] = [];
    flushes = 0;
    write(data: string): boolean {
      this.lines.push(data);
      return true;
    }
    flush(): void {
      this.flushes += 1;
    }
  }

  it('arms one flush for a burst of lines, and none once every byte is out', () => {
    const timers = manualTimers();
    const stream = flushedWithin(new HeldStream(), 200, timers.setTimer);
    expect(timers.queue).toHaveLength(0); // nothing written: nothing scheduled
    for (const line of ['{"a":1}\n', '{"b":"é"}\n', '{"c":3}\n']) stream.write(line);
    expect(stream.lines).toHaveLength(3);
    expect(timers.queue).toHaveLength(1);
    timers.runNext();
    expect(stream.flushes).toBe(1);
    // The flush's write is still in flight (no 'write' event yet): another flush is armed for its leftover.
    expect(timers.queue).toHaveLength(1);
    timers.runNext();
    expect(stream.flushes).toBe(2);
    stream.emit('write', Buffer.byteLength('{"a":1}\n{"b":"é"}\n{"c":3}\n'));
    timers.runNext();
    // Every byte reported out: no flush, and nothing armed until the next line.
    expect(stream.flushes).toBe(2);
    expect(timers.queue).toHaveLength(0);
    stream.write('{"d":4}\n');
    expect(timers.queue).toHaveLength(1);
  });

  it("writes pino's lines through sonic-boom within the delay, then arms nothing while the server is quiet", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
    const file = join(dir, 'out.log');
    let armed = 0;
    const setTimer = (run: () => void, ms: number) => {
      armed += 1;
      return setTimeout(run, ms);
    };
    const destination = pino.destination({ dest: openSync(file, 'a'), sync: false, minLength: 4096 });
    try {
      const logger = createLogger({ level: 'info', destination: flushedWithin(destination, 20, setTimer) });
      logger.info({ n: 1 }, 'first line');
      logger.info({ n: 2 }, 'second line');
      // Below the batch size: nothing is written until the timer's flush.
      expect(readFileSync(file, 'utf8')).toBe('');
      const deadline = Date.now() + 5000;
      while (!readFileSync(file, 'utf8').includes('second line') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(
        readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line).msg),
      ).toEqual(['first line', 'second line']);
      // Once the lines are out (and the flush still armed for them has run), quiet: ten delays
      // pass and no timer is armed.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const settled = armed;
      expect(settled).toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(armed).toBe(settled);
    } finally {
      destination.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
