import type { Express, Request, RequestHandler, Response } from 'express';
import type { AfterAnswerKind } from '../after-answer';
import type { MailRouteDeps } from '../app-deps';
import { hotPathRouteFailure, keyedJsonHotPath, type HotPath, type KeyedJsonRoute } from '../hot-path';
import { countLimits } from '../middleware/rate-limit';
import type { RateLimitName } from '../middleware/rate-limit-rules';
import { bodyOf, validateBody, type DtoClass } from '../middleware/validate';
import { answerSuccessThen } from './answer-first';
import { keyed, limitOptions } from './guards';

/**
 * A request for a mail (a magic link, a password reset, the address's verification again): with
 * an API key and a body checked into `Dto`, counted against `limits`, it answers success before it
 * looks at any account, then runs the work `accept` leaves (answer-first.ts).
 */
export interface MailRequest<T extends object> {
  path: string;
  Dto: DtoClass<T>;
  limits: readonly RateLimitName[];
  kind: AfterAnswerKind;
  /** The use case's first step on the checked key and body (what depends on no account); returns the rest. */
  accept(req: Request, res: Response, body: T): () => Promise<void>;
}

/** The route's handlers: the key, the body, then {@link mailRequestAnswer}. */
export function mailRequestHandlers<T extends object>(deps: MailRouteDeps, request: MailRequest<T>): RequestHandler[] {
  const { Dto, answer } = mailRequestAnswer(deps, request);
  return [hotPathRouteFailure(), ...keyed(deps), validateBody(Dto), answer];
}

/**
 * What the route and its hot path run once key and body are checked: the request's limits, then
 * the success answer and the work after it.
 */
function mailRequestAnswer<T extends object>(deps: MailRouteDeps, request: MailRequest<T>): KeyedJsonRoute {
  const options = limitOptions(deps);
  return {
    Dto: request.Dto,
    answer: async (req, res) => {
      await countLimits(request.limits, options, req, res);
      await answerSuccessThen(deps.afterAnswer, res, request.kind, request.accept(req, res, bodyOf(res, request.Dto)));
    },
  };
}

/**
 * The mail requests from servers answered without Express (hot-path.ts, `keyedJsonHotPath`): a
 * request that cannot be carried to the end there (an Origin, a query string, no key, a body that
 * is not plain JSON within the limit) is Express's, and any failure on the way (a bad key or body,
 * a limit, a project without the mail's page) is handed to Express's error handler.
 */
export function mailRequestHotPath(deps: MailRouteDeps, app: Express, requests: ReadonlyArray<MailRequest<object>>): HotPath {
  return keyedJsonHotPath(deps, app, Object.fromEntries(requests.map((request) => [request.path, mailRequestAnswer(deps, request)])));
}
