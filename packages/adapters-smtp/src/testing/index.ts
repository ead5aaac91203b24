export * from './test-smtp-server';
