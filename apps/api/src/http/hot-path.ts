import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { AuthService } from '@svc/core';
import { countAnswer, type Metrics } from './metrics';
import { chooseRequestId } from './middleware/request-id';
import { elapsedMs, requestLineWriter } from './middleware/request-log';
import { BODY_LIMIT_BYTES, parseJsonText } from './middleware/json-guard';
import { SECURITY_HEADERS, setSecurityHeaders } from './middleware/security-headers';
import { validateInput, type DtoClass } from './middleware/validate';
import { runInRequestContext } from './request-context';

/**
 * Hot paths answer the busiest server-to-server requests without Express: routing, the middleware
 * chain and Express's response helpers cost more than the work of such a request (bench/README.md).
 * Each is defined beside its route (routes/auth-me.ts, routes/auth-refresh.ts,
 * routes/mail-request.ts) and calls the same functions the route calls; this module puts them in
 * front of the app and hands Express what they do not answer themselves.
 *
 * A hot path writes only its success answer. Anything else goes to Express in one of two ways:
 * - `handOver()`: nothing has happened yet that a second run could not repeat (no write, nothing
 *   counted, no header set); Express runs the request as if the hot path had not seen it.
 * - `handOver(failure)`: the request failed part-way (a refresh's rotation, a rate limit already
 *   counted, a database that did not answer in time); Express is handed the failure, and its
 *   error handler answers it behind the same middleware as when the route throws it. The hot
 *   path has set, in the app's order, the headers the middleware set as far as the request got
 *   (frontHeaders, no-store, Vary, the rate limit's); Express sets the first ones again in place,
 *   so the answer is the one the route gives (test/refresh-hot-path.test.ts compares them).
 */
export type HotPath = (req: IncomingMessage, res: ServerResponse, handOver: HandOver) => boolean;

type HandOver = (failure?: HotPathFailure) => void;

/** A failure of a hot path that Express is to answer as it is. */
interface HotPathFailure {
  error: unknown;
  /** The id the request already carries (in events, in log lines); Express keeps it. */
  requestId: string;
  /**
   * Where the route would have thrown it: `'route'` once the request would have reached its route
   * (the error then passes the middleware in front, and the log names the route), `'front'` for
   * the body's own checks, which run before any route (json-guard.ts).
   */
  at: 'front' | 'route';
}

/** Puts `paths` in front of every way `app` is served; each says whether it took the request. */
export function installHotPaths(app: Express, paths: readonly HotPath[]): void {
  const expressApp = app as unknown as { handle(req: IncomingMessage, res: ServerResponse, done?: unknown): void };
  const viaExpress = expressApp.handle.bind(app);
  // `app` (the function listen() and supertest call) delegates to app.handle: wrapping it puts the
  // hot paths in front of every way the app is served, mounted apps included.
  expressApp.handle = (req, res, done) => {
    const handOver: HandOver = (failure) => {
      if (failure) failures.set(req, failure);
      viaExpress(req, res, done);
    };
    for (const path of paths) if (path(req, res, handOver)) return;
    viaExpress(req, res, done);
  };
}

const failures = new WeakMap<IncomingMessage, HotPathFailure>();

/**
 * Mounted in the app after the request id and the log, before anything else: a request a hot path
 * handed over with a failure keeps the request id it was given, and a failure of the front goes
 * straight to the error handler. A route's failure waits for its route (`hotPathRouteFailure`).
 */
export function hotPathFailures(): RequestHandler {
  return (req, res, next) => {
    const failure = failures.get(req);
    if (failure === undefined) return next();
    res.locals.requestId = failure.requestId;
    res.set('X-Request-Id', failure.requestId);
    if (failure.at === 'route') return next();
    failures.delete(req);
    next(failure.error);
  };
}

/**
 * First handler of a route that has a hot path: a failure the hot path met in this route is thrown
 * here, so the error handler answers it as when the route's own handlers throw it (the log and the
 * metrics name the route; the headers the hot path set stand as the route's middleware set them).
 */
export function hotPathRouteFailure(): RequestHandler {
  return (req, _res, next) => {
    const failure = failures.get(req);
    if (failure === undefined) return next();
    failures.delete(req);
    next(failure.error);
  };
}

/**
 * The app's `request` and `response` prototypes on a request the router has not seen, as
 * app.handle sets them: Express's helpers (`req.ip` after TRUST_PROXY, `req.get`, `res.set`,
 * `res.locals`) work, and the functions the route calls can be called with them.
 */
function asExpress(app: Express, req: IncomingMessage, res: ServerResponse): { req: Request; res: Response } {
  const express = req as Request;
  const response = res as Response;
  express.res = response;
  response.req = express;
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  response.locals ??= Object.create(null) as Response['locals'];
  return { req: express, res: response };
}

/**
 * What the app's middleware sets before anything reads the request (request id, helmet): the
 * request's id, to be carried by its events and its log line.
 */
export function frontHeaders(req: IncomingMessage, res: ServerResponse): string {
  const requestId = chooseRequestId(req.headers['x-request-id']);
  res.setHeader('X-Request-Id', requestId);
  setSecurityHeaders(res);
  return requestId;
}

/** What requestLog and countRequests write for an answer a hot path sent. */
export type AnswerRecorder = (answer: { req: IncomingMessage; requestId: string; method: string; path: string; status: number; started: bigint }) => void;

export function answerRecorder(logger: Logger, metrics: Metrics): AnswerRecorder {
  const writeLine = requestLineWriter(logger);
  return ({ req, requestId, method, path, status, started }) => {
    const route = `${(req as { baseUrl?: string }).baseUrl ?? ''}${path}`;
    writeLine({ requestId, method, route, status, ms: elapsedMs(started) });
    countAnswer(metrics, { method, route, status, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A 200 with `{ data }` as `res.json` writes it (the app sends no ETag): the one writer of the
 * routes that have a hot path, used by the route and by its hot path.
 */
export function writeDataAnswer(res: ServerResponse, data: unknown): void {
  const body = JSON.stringify({ data });
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.statusCode = 200;
  res.end(body);
}

/**
 * The success answer of a hot path that sets no header before its answer: what frontHeaders sets,
 * then `routeHeaders` (name, value, ...: what the route's middleware sets, in its order), then what
 * writeDataAnswer sets, handed to one `res.writeHead` as a flat list. The same bytes as setting
 * them one by one (test/hot-path.test.ts compares them with the route's), without the ~17
 * setHeader calls, each of which validates, lower-cases and keeps its header for a getHeader
 * nobody makes here (bench/README.md, round 7). A header set before (Connection: close while the
 * server stops, drain.ts) stays in front, as it does behind Express.
 */
export function dataAnswerWriter(routeHeaders: readonly string[]): (res: ServerResponse, requestId: string, data: unknown) => void {
  const template = ['X-Request-Id', '', ...SECURITY_HEADERS.flat(), ...routeHeaders, 'Content-Type', JSON_TYPE, 'Content-Length', ''];
  const length = template.length - 1;
  return (res, requestId, data) => {
    const body = JSON.stringify({ data });
    const headers = template.slice();
    headers[1] = requestId;
    headers[length] = String(Buffer.byteLength(body));
    res.writeHead(200, headers);
    res.end(body);
  };
}

const PLAIN_JSON = /^application\/json(?:;\s*charset=utf-8)?$/i;
const DECIMAL = /^[1-9][0-9]{0,9}$/;

/**
 * True when the request carries a body that Express's body handling (require-json.ts,
 * json-guard.ts) would read and hand on without a word: JSON, UTF-8, not compressed, a declared
 * length within the limit, and not read by anyone yet (an app this one is mounted in may parse
 * bodies itself). Other bodies (and none) are left to Express, which answers them.
 */
function unreadJsonBody(req: IncomingMessage): boolean {
  const headers = req.headers;
  if (req.readableFlowing !== null || req.readableEnded) return false;
  if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return false;
  const length = headers['content-length'];
  if (length === undefined || !DECIMAL.test(length) || Number(length) > BODY_LIMIT_BYTES) return false;
  return PLAIN_JSON.test(headers['content-type'] ?? '');
}

/**
 * The body's text, read as body-parser reads it; a request that ends before its body rejects with
 * body-parser's error (400 through http-errors.ts), for the error handler to answer.
 */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const aborted = () => reject(Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 }));
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', aborted);
    req.once('close', () => {
      if (!req.complete) aborted();
    });
  });
}

/**
 * What a keyed JSON route ends with, after `keyed` and `validateBody(Dto)`: its own last handler,
 * which counts the route's limits (refresh: beside its read), writes the success answer, or throws. The route and its hot
 * path both call `answer`, so nothing after the body's check is decided twice.
 */
export interface KeyedJsonRoute {
  Dto: DtoClass<object>;
  answer(req: Request, res: Response): Promise<void>;
}

export interface KeyedJsonHotPathDeps {
  auth: Pick<AuthService, 'resolveApiKey'>;
  logger: Logger;
  metrics: Metrics;
}

/**
 * POSTs of `routes` (exact path -> route) from a server, answered without Express. Such a request
 * changes state (a rotation, a limit counted, a mail accepted), so it runs once: the hot path takes
 * only requests it can carry to the end and runs the steps the app and the route run, in their
 * order and with their functions (request id, helmet, the body's checks, the request's context for
 * events, no-store, the API key, Vary, the DTO, then the route's `answer`), and hands any failure
 * to Express's error handler, which answers it behind the same headers. Not taken (Express answers
 * as it always does): an Origin (CORS), a query string, a missing key, a body that is not plain
 * JSON within the limit or was read already.
 */
export function keyedJsonHotPath(deps: KeyedJsonHotPathDeps, app: Express, routes: Readonly<Record<string, KeyedJsonRoute>>): HotPath {
  const recordAnswer = answerRecorder(deps.logger, deps.metrics);
  const byPath = new Map(Object.entries(routes));
  return (incoming, response, handOver) => {
    const headers = incoming.headers;
    if (incoming.method !== 'POST' || headers.origin !== undefined) return false;
    const path = incoming.url ?? '';
    const route = byPath.get(path);
    if (route === undefined || typeof headers['x-api-key'] !== 'string' || !unreadJsonBody(incoming)) return false;
    const started = process.hrtime.bigint();
    const { req, res } = asExpress(app, incoming, response);
    const requestId = frontHeaders(req, res);
    res.locals.requestId = requestId;
    let handedOver = false;
    const inRoute = async (body: unknown) => {
      // Written once the answer is finished, as requestLog and countRequests write it: work the
      // answer leaves for after it (answer-first.ts) logs in the same order as behind Express.
      res.once('finish', () => {
        if (!handedOver) recordAnswer({ req, requestId, method: 'POST', path, status: res.statusCode, started });
      });
      res.setHeader('Cache-Control', 'no-store'); // noStore, on /api/auth
      res.locals.apiKey = await deps.auth.resolveApiKey(req.get('x-api-key')); // requireApiKey
      res.vary('Origin'); // checkOrigin, for a request without an Origin
      res.locals.body = await validateInput(route.Dto, body ?? null); // validateBody
      await route.answer(req, res);
    };
    readBody(req)
      .then(parseJsonText)
      .then(
        (body) =>
          runInRequestContext(req, res, () => inRoute(body)).catch((error: unknown) => {
            handedOver = true; // Express's requestLog and countRequests write this answer's line
            handOver({ error, requestId, at: 'route' });
          }),
        (error: unknown) => handOver({ error, requestId, at: 'front' }),
      );
    return true;
  };
}
