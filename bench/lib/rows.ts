import { TokenQueue, type LoadOptions, type RequestSpec } from './load';
import { seedEmail } from './database';
import { PASSWORD } from './svc';

/** How a row is driven, apart from where and how hard (url, connections, seconds). */
export type Workload = Pick<LoadOptions, 'next' | 'onResponse' | 'expectStatus' | 'drained'>;

const json = (body: unknown) => JSON.stringify(body);

/** Sign-up with a new e-mail on every request (a counter; `tag` keeps runs apart). */
export function signUp(apiKey: string, tag: string): Workload {
  let n = 0;
  return {
    next: () => ({ method: 'POST', path: '/api/auth/signup', headers: { 'x-api-key': apiKey }, body: json({ email: `signup-${tag}-${(n += 1)}@example.test`, password: PASSWORD }) }),
    expectStatus: 201,
  };
}

/** Logins spread over all seeded users (a prime stride), so a large table is not read only at its start. */
export function logIn(apiKey: string, users: number, first = 1): Workload {
  let n = 0;
  return {
    next: () => ({ method: 'POST', path: '/api/auth/login', headers: { 'x-api-key': apiKey }, body: json({ email: seedEmail(((n++ * 7919) % users) + first), password: PASSWORD }) }),
    expectStatus: 200,
  };
}

/**
 * Refresh tokens are single-use, so every request needs a fresh one. All connections share one
 * queue: a request takes the oldest token, its answer puts the successor back (autocannon calls
 * onResponse before the same connection builds its next request), so the queue never runs dry
 * while answers succeed. Seed it with a few times as many tokens as connections.
 */
export function refresh(path: string, headers: Record<string, string>, tokens: string[]): Workload {
  const queue = new TokenQueue(tokens);
  return {
    next: () => ({ method: 'POST', path, headers, body: json({ refreshToken: queue.take() }) }),
    onResponse: (status, body) => {
      if (status === 200) queue.push((JSON.parse(body) as { data: { refreshToken: string } }).data.refreshToken);
    },
    expectStatus: 200,
  };
}

/** GET with a bearer token, round-robin over a few tokens. */
export function bearerGet(path: string, headers: Record<string, string>, accessTokens: string[]): Workload {
  let n = 0;
  return { next: () => ({ method: 'GET', path, headers: { ...headers, authorization: `Bearer ${accessTokens[n++ % accessTokens.length]}` } }), expectStatus: 200 };
}

/** Magic-link requests for existing users (their mail goes through the outbox to the file mailer). */
export function magicLink(apiKey: string, users: number): Workload {
  let n = 0;
  return { next: () => ({ method: 'POST', path: '/api/auth/magic-link', headers: { 'x-api-key': apiKey }, body: json({ email: seedEmail((n++ % users) + 1) }) }), expectStatus: 200 };
}

/** Password-reset requests for existing users (like magic links: a token and a mail through the outbox). */
export function passwordReset(apiKey: string, users: number): Workload {
  let n = 0;
  return { next: () => ({ method: 'POST', path: '/api/auth/password/reset', headers: { 'x-api-key': apiKey }, body: json({ email: seedEmail((n++ % users) + 1) }) }), expectStatus: 200 };
}

/** The minimal mail request (bench/servers/minimal-server.ts) for seeded users, at `path` (with or without delivery). */
export function minimalMailRequest(users: number, path: '/mail-request' | '/mail-request-delivered'): Workload {
  let n = 0;
  return { next: () => ({ method: 'POST', path, body: json({ email: seedEmail((n++ % users) + 1) }) }), expectStatus: 200 };
}

/** A GET with fixed headers (the proxy's session, the peer's get-session, "hello"). */
export function get(path: string, headers: Record<string, string> = {}): Workload {
  const spec: RequestSpec = { method: 'GET', path, headers };
  return { next: () => spec, expectStatus: 200 };
}

/** better-auth's sign-up: a new e-mail per request (it also wants a name; its CSRF check wants an Origin). */
export function peerSignUp(origin: string, tag: string): Workload {
  let n = 0;
  return {
    next: () => ({ method: 'POST', path: '/api/auth/sign-up/email', headers: { origin }, body: json({ email: `peer-${tag}-${(n += 1)}@example.test`, password: PASSWORD, name: 'Bench' }) }),
    expectStatus: 200,
  };
}

/** better-auth's sign-in, spread over its seeded users. */
export function peerSignIn(origin: string, emails: string[]): Workload {
  let n = 0;
  return { next: () => ({ method: 'POST', path: '/api/auth/sign-in/email', headers: { origin }, body: json({ email: emails[n++ % emails.length], password: PASSWORD }) }), expectStatus: 200 };
}
