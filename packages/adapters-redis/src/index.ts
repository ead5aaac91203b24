export * from './redis-rate-limiter';
export * from './connect-redis';
