export * from './redis-available';
export * from './outage-proxy';
export * from './wait-until';
