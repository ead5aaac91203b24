import type { Express } from 'express';

/**
 * Counts the requests that reach `app`'s Express router, which tells whether a hot path took a
 * request (0) or handed it to Express (1). Returns the running count.
 */
export function countRouted(app: Express): () => number {
  let routed = 0;
  const router = (app as unknown as { router: { handle: (...args: unknown[]) => void } }).router;
  const route = router.handle.bind(router);
  router.handle = (...args) => {
    routed += 1;
    route(...args);
  };
  return () => routed;
}
