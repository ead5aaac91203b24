export * from './bcrypt-password-hasher';
export * from './common-password-file';
export * from './key-encryption';
export * from './rsa-signing-key-factory';
export * from './rs256-access-token-codec';
export * from './secret-box';
