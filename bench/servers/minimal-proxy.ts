// The minimal session proxy: the standalone proxy's `GET session` with nothing else (no routing, no
// cookie jar, no SDK, no retries or timers, no drain on stop), on bare node:http and undici's
// dispatcher, as the proxy's own client uses it. It reads the access cookie, asks the API's /me
// with the headers the SDK sends, and answers the user under the standalone proxy's head. Its
// req/s is the floor of any Node proxy that asks the API once per page view: the proxy rows are
// read against it (bench/README.md, round 41). Started as a child by bench/run.ts.
import { createServer, type ServerResponse } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { SECURITY_HEADERS } from '../../apps/proxy/src/server';
import { callHeaders } from '../../packages/sdk/src';

const env = (name: string) => process.env[name] ?? fail(`${name} is required`);
const api = new URL(env('SVC_API_URL')).origin;
const apiKey = env('SVC_API_KEY');
const ACCESS_COOKIE = 'svc_at=';
const agent = new Agent();

const server = createServer((req, res) => {
  if (req.url === '/healthz') return answer(res, 200, '{"data":{"status":"ok"}}');
  const token = accessToken(req.headers.cookie);
  if (!token) return answer(res, 401, '{"error":"invalid_token","message":"No active session: sign in."}');
  const headers = callHeaders(apiKey, { clientIp: req.socket.remoteAddress, accessToken: token });
  agent.dispatch({ origin: api, path: '/api/auth/me', method: 'GET', headers }, new MeCall(res));
});
server.keepAliveTimeout = 65_000;
server.listen(Number(env('PORT')), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));

function accessToken(cookie: string | undefined): string | null {
  const at = cookie?.indexOf(ACCESS_COOKIE) ?? -1;
  if (!cookie || at < 0) return null;
  const end = cookie.indexOf(';', at);
  return cookie.slice(at + ACCESS_COOKIE.length, end < 0 ? undefined : end);
}

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, [...SECURITY_HEADERS, 'Cache-Control', 'no-store', 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text))]);
  res.end(text);
}

/** One /me call as undici's dispatcher drives it: the body collected, then the answer written. */
class MeCall implements Dispatcher.DispatchHandler {
  private status = 0;
  private readonly chunks: Buffer[] = [];

  constructor(private readonly res: ServerResponse) {}

  onConnect(): void {}

  onHeaders(status: number): boolean {
    this.status = status;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    const text = Buffer.concat(this.chunks).toString('utf8');
    if (this.status !== 200) return answer(this.res, this.status, text);
    const { user } = (JSON.parse(text) as { data: { user: unknown } }).data;
    answer(this.res, 200, JSON.stringify({ data: { user, poweredByService: false } }));
  }

  onError(): void {
    this.res.destroy();
  }
}

function fail(message: string): never {
  throw new Error(message);
}
