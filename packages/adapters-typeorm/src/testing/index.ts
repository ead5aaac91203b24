export * from './postgres-available';
