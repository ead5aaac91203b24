// The limiter moved to rate-limit/ because production code uses it (the embedded default and the
// failover's local counts); this path keeps `@svc/core/testing` imports working.
export { InMemoryRateLimiter } from '../rate-limit/in-memory-rate-limiter';
