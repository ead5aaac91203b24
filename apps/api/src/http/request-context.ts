import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request, RequestHandler, Response } from 'express';
import type { Actor, EventContext, ResolvedApiKey, SecurityEventSink } from '@svc/core';
import { clientAddress } from './middleware/client-address';

/** The request an event happens in, read when the event is emitted (the API key is known by then). */
interface RequestScope {
  req?: Request;
  res?: Response;
  /**
   * What the request's events carry once its answer is over: read then from `req` and `res`,
   * which the scope lets go of (see runInRequestContext).
   */
  ended?: EventContext;
  /** The caller when it is the operator (the admin routes set it). */
  actor?: Actor;
}

const storage = new AsyncLocalStorage<RequestScope>();

/**
 * Runs the rest of the request inside its context, so events emitted by the use cases it calls
 * (and by the work it leaves for after its answer) carry its client address, user agent and
 * request id. Mounted after the body parsers: their stream callbacks run outside any context.
 */
export function requestContext(): RequestHandler {
  return (req, res, next) => runInRequestContext(req, res, next);
}

/**
 * Runs `work` inside the context of the request (requestContext; hot paths, which have no chain).
 *
 * Once the response has closed, the scope keeps the few values its events read instead of the
 * request and the response. V8 often allocates the scope straight into the old generation; holding
 * them, a finished scope kept its request and everything the request reached alive through every
 * scavenge until the next full collection (bench/README.md, "Round 17"). Work still running in the
 * scope after the answer, such as a mail request's job, emits its events with the same context.
 */
export function runInRequestContext<T>(req: Request, res: Response, work: () => T): T {
  // `ended` is declared here so that setting it later grows nothing (the scope may be old, the growth young).
  const scope: RequestScope = { req, res, ended: undefined };
  res.once('close', () => endScope(scope));
  return storage.run(scope, work);
}

function endScope(scope: RequestScope): void {
  scope.ended = requestEventContext(scope);
  scope.req = undefined;
  scope.res = undefined;
}

/** Names the operator as the caller of the rest of the request (the admin API). */
export function actAs(actor: Actor): RequestHandler {
  return (_req, _res, next) => {
    const scope = storage.getStore();
    if (scope) scope.actor = actor;
    next();
  };
}

/** Runs `work` with `actor` as the caller of every event it causes (the CLI, outside any request). */
export function runAs<T>(actor: Actor, work: () => Promise<T>): Promise<T> {
  return storage.run({ actor }, work);
}

/** What the edge knows of the current request; empty outside one. */
function currentEventContext(): EventContext {
  const scope = storage.getStore();
  return scope ? requestEventContext(scope) : {};
}

function requestEventContext(scope: RequestScope): EventContext {
  if (scope.ended) return scope.ended;
  const { req, res } = scope;
  if (!req || !res) return { actor: scope.actor };
  const key = res.locals.apiKey as ResolvedApiKey | undefined;
  const userAgent = req.get('user-agent');
  return {
    clientAddress: clientAddress(req, res),
    // Bounded: it is caller-chosen text kept for months.
    userAgent: userAgent ? userAgent.slice(0, 512) : undefined,
    requestId: typeof res.locals.requestId === 'string' ? res.locals.requestId : undefined,
    actor: scope.actor ?? (key ? { type: 'api_key', apiKeyId: key.keyId } : undefined),
  };
}

/** `sink` with each event's context filled in from the request it happens in. */
export function withRequestContext(sink: SecurityEventSink): SecurityEventSink {
  return { emit: (scope, event) => sink.emit(scope, { ...event, context: { ...currentEventContext(), ...event.context } }) };
}
