import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a route answers: a status, and JSON or a redirect. */
export type Reply = { status: number; json?: unknown; location?: string };
export type Route = (request: { url: URL; headers: IncomingMessage['headers']; form: URLSearchParams }) => Reply | Promise<Reply>;

export interface CodeGrantServerOptions {
  clientId: string;
  clientSecret: string;
  paths: { authorize: string; token: string };
  /** GitHub answers a refused grant with 200 and an error body; RFC 6749 servers with 400. */
  tokenErrorStatus: 200 | 400;
  tokenType: string;
}

interface Grant<A> {
  redirectUri: string;
  codeChallenge: string;
  account: A;
}

/**
 * A real OAuth 2.0 authorization server on loopback (node:http), as strict as the providers it
 * stands for: the authorize step wants our client id and a PKCE S256 challenge and redirects
 * the browser back with `code` and `state`; the token step checks the client secret (Basic or
 * form), that the code is unused, the redirect URI and the PKCE verifier. `account` is who the
 * next browser signs in as; a bearer token maps to the account it was issued for.
 */
export class CodeGrantServer<A> {
  /** Every token request's form, for assertions (PKCE sent, secret sent). */
  readonly tokenRequests: Record<string, string>[] = [];
  /** The next authorization answers `error=access_denied` (the user clicked "Cancel"). */
  denyNext = false;
  private readonly grants = new Map<string, Grant<A>>();
  private readonly tokens = new Map<string, A>();
  private readonly routes = new Map<string, Route>();
  private server?: Server;
  url = '';

  constructor(
    private readonly options: CodeGrantServerOptions,
    public account: A,
  ) {
    this.routes.set(`GET ${options.paths.authorize}`, ({ url }) => this.authorize(url));
    this.routes.set(`POST ${options.paths.token}`, (request) => this.token(request.headers, request.form));
  }

  /** Adds a resource route (e.g. GitHub's /user) answered for the bearer token's account. */
  resource(path: string, answer: (account: A) => unknown): void {
    this.routes.set(`GET ${path}`, ({ headers }) => {
      const account = this.tokens.get((headers.authorization ?? '').replace(/^Bearer /, ''));
      return account === undefined ? { status: 401, json: { message: 'Bad credentials' } } : { status: 200, json: answer(account) };
    });
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.dispatch(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private authorize(url: URL): Reply {
    const q = url.searchParams;
    const redirectUri = q.get('redirect_uri');
    if (q.get('client_id') !== this.options.clientId || !redirectUri) return { status: 400, json: { error: 'invalid_request' } };
    // Stricter than GitHub and Discord, which merely accept PKCE: proves the client always sends it.
    if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
      return { status: 400, json: { error: 'invalid_request', error_description: 'PKCE (S256) is required' } };
    }
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    if (this.denyNext) {
      this.denyNext = false;
      back.searchParams.set('error', 'access_denied');
      return { status: 302, location: back.href };
    }
    const code = randomBytes(16).toString('hex');
    this.grants.set(code, { redirectUri, codeChallenge: q.get('code_challenge')!, account: structuredClone(this.account) });
    back.searchParams.set('code', code);
    return { status: 302, location: back.href };
  }

  private token(headers: IncomingMessage['headers'], form: URLSearchParams): Reply {
    this.tokenRequests.push(Object.fromEntries(form));
    const [id, secret] = clientCredentials(headers, form);
    const code = form.get('code') ?? '';
    const grant = this.grants.get(code);
    this.grants.delete(code);
    const verifier = form.get('code_verifier') ?? '';
    const s256 = createHash('sha256').update(verifier).digest('base64url');
    if (id !== this.options.clientId || secret !== this.options.clientSecret) return { status: 401, json: { error: 'invalid_client' } };
    if (!grant || grant.redirectUri !== form.get('redirect_uri') || grant.codeChallenge !== s256) {
      return { status: this.options.tokenErrorStatus, json: { error: 'invalid_grant', error_description: 'bad code, redirect_uri or code_verifier' } };
    }
    const accessToken = randomBytes(20).toString('hex');
    this.tokens.set(accessToken, grant.account);
    return { status: 200, json: { access_token: accessToken, token_type: this.options.tokenType, scope: form.get('scope') ?? '' } };
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const route = this.routes.get(`${req.method} ${url.pathname}`);
    const reply = route ? await route({ url, headers: req.headers, form: new URLSearchParams(Buffer.concat(chunks).toString('utf8')) }) : { status: 404, json: { error: 'not_found' } };
    if (reply.location) res.setHeader('Location', reply.location);
    if (reply.json !== undefined) res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.writeHead(reply.status).end(reply.json === undefined ? undefined : JSON.stringify(reply.json));
  }
}

/** RFC 6749 §2.3.1: HTTP Basic (form-urlencoded parts) or client_id/client_secret in the form. */
function clientCredentials(headers: IncomingMessage['headers'], form: URLSearchParams): [string | null, string | null] {
  const basic = /^Basic (.+)$/.exec(headers.authorization ?? '');
  if (!basic) return [form.get('client_id'), form.get('client_secret')];
  const [id, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
  return [decodeURIComponent(id ?? ''), decodeURIComponent(secret ?? '')];
}
