import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { scanJson } from '../src/http/middleware/json-guard';
import { buildTestApp, createProject } from './helpers';

describe('scanJson', () => {
  it.each([
    ['{"a":1,"b":{"c":[1,{"d":2}]}}', null],
    ['{"a":1,"a":2}', 'a appears twice in one object.'],
    ['{"meta":{"x":{"k":1,"k":1}}}', 'meta.x.k appears twice in one object.'],
    ['[{"a":1},{"a":1}]', null], // one key per object: not a duplicate
    ['{"list":[{"a":1},{"b":[{"c":1,"c":2}]}]}', 'list[1].b[0].c appears twice in one object.'],
    ['{"a":"x,\\"a\\":1","b":"{["}', null], // commas, quotes and brackets inside strings are data
    ['{"m":{"__proto__":{}}}', 'm.__proto__ is not an allowed key.'],
    ['{"\\u005f_proto__":1}', '__proto__ is not an allowed key.'], // escapes are decoded
    ['{"a":[{"constructor":1}]}', 'a[0].constructor is not an allowed key.'],
    ['{"value":"__proto__"}', null], // a value, not a key
    ['{"a\\u0062":1,"ab":2}', 'ab appears twice in one object.'],
  ])('%s -> %s', (text, problem) => {
    expect(scanJson(text)).toBe(problem);
  });

  it('stops at the first level too deep, in linear time, without recursion', () => {
    const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    const started = Date.now();
    expect(scanJson(deep)).toBe('The request body is nested deeper than 32 levels.');
    expect(Date.now() - started).toBeLessThan(100);
    expect(scanJson(`${'['.repeat(32)}${']'.repeat(32)}`)).toBeNull();
  });
});

/** A raw HTTP exchange, for what supertest cannot send (a lying Content-Length, a chunked body). */
async function rawRequest(app: Express, write: (req: ReturnType<typeof httpRequest>) => void, headers: Record<string, string>) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    return await new Promise<{ status: number; body: string; ms: number }>((resolve, reject) => {
      const started = Date.now();
      const req = httpRequest({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', method: 'POST', path: '/api/auth/signup', headers }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: Date.now() - started }));
      });
      req.on('error', reject);
      write(req);
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('input limits over HTTP: the envelope, never a 500, and the process stays healthy', () => {
  const setup = async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const signup = (body: string, type = 'application/json') => http.post('/api/auth/signup').set('X-API-Key', project.live).set('Content-Type', type).send(body);
    return { app, http, project, signup };
  };

  it.each([
    ['an array as the body', '[{"email":"a@b.com","password":"long enough"}]', 'The request body must be a JSON object.'],
    ['a scalar as the body', '"hello"', 'The request body must be a JSON object.'],
    ['10k-deep meta', `{"email":"a@b.com","password":"long enough","meta":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`, 'The request body is nested deeper than 32 levels.'],
    ['a __proto__ key in meta', '{"email":"a@b.com","password":"long enough","meta":{"__proto__":{"role":"admin"}}}', 'meta.__proto__ is not an allowed key.'],
    ['a constructor key deep in meta', '{"email":"a@b.com","password":"long enough","meta":{"a":{"constructor":{"prototype":1}}}}', 'meta.a.constructor is not an allowed key.'],
    ['a duplicate key', '{"email":"a@b.com","password":"long enough","email":"admin@b.com"}', 'email appears twice in one object.'],
    ['a duplicate key in meta', '{"email":"a@b.com","password":"long enough","meta":{"plan":"free","plan":"pro"}}', 'meta.plan appears twice in one object.'],
    ['a number as e-mail', '{"email":42,"password":"long enough"}', 'email must be a string.'],
    ['an object as password', '{"email":"a@b.com","password":{"$ne":""}}', 'password must be a string.'],
    ['an array as meta', '{"email":"a@b.com","password":"long enough","meta":[1]}', 'meta must be a JSON object.'],
    ['CR/LF in the e-mail', '{"email":"a@b.com\\r\\nBcc: x@evil.com","password":"long enough"}', 'email must not contain line breaks.'],
    ['invalid JSON', '{"email": "a@b.com",', 'The request body is not valid JSON.'],
  ])('400 validation_error for %s', async (_what, body, message) => {
    const { http, signup } = await setup();
    const res = await signup(body).expect(400);
    expect(res.body).toEqual({ error: 'validation_error', message });
    await http.get('/healthz').expect(200);
  });

  it('415 for non-JSON bodies and for JSON in another charset', async () => {
    const { http, signup } = await setup();
    expect((await signup('email=a@b.com', 'application/x-www-form-urlencoded').expect(415)).body.error).toBe('unsupported_media_type');
    const latin1 = await signup('{"email":"a@b.com","password":"long enough"}', 'application/json; charset=latin1').expect(415);
    expect(latin1.body).toEqual({ error: 'unsupported_media_type', message: 'The request body must be UTF-8 encoded JSON.' });
    await signup('{"email":"a@b.com","password":"long enough"}', 'application/json; charset=UTF-8').expect(201);
    await http.get('/healthz').expect(200);
  });

  it('413 from a declared Content-Length over 64 KiB, before the body is read', async () => {
    const { app, http, project } = await setup();
    // Declares 10 MB and sends 10 bytes: an answer that waits for the body would never come.
    const res = await rawRequest(app, (req) => req.write('{"email":'), { 'Content-Type': 'application/json', 'Content-Length': String(10 * 1024 * 1024), 'X-API-Key': project.live });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: 'payload_too_large', message: 'The request body is too large (at most 64 KiB).' });
    await http.get('/healthz').expect(200);
  });

  it('413 for a chunked body once it passes 64 KiB', async () => {
    const { app, http, project } = await setup();
    const chunk = `{"email":"a@b.com","password":"long enough","meta":{"blob":"${'x'.repeat(70 * 1024)}"}}`;
    const res = await rawRequest(
      app,
      (req) => {
        for (let i = 0; i < chunk.length; i += 8192) req.write(chunk.slice(i, i + 8192));
        req.end();
      },
      { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'X-API-Key': project.live },
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error).toBe('payload_too_large');
    await http.get('/healthz').expect(200);
  });

  it('a body just under the limit is read', async () => {
    const { signup } = await setup();
    const body = JSON.stringify({ email: 'a@b.com', password: 'long enough', meta: { blob: 'x'.repeat(60 * 1024) } });
    await signup(body).expect(201);
  });
});
