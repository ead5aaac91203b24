export * from './redis-rate-limiter';
export * from './connect-redis';
export * from './redis-change-feed';
