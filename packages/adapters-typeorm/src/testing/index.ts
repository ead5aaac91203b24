export * from './postgres-available';
export * from './first-release';
