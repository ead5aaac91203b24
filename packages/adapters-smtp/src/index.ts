export * from './smtp-mailer';
export * from './file-mailer';
export * from './outbox-worker';
