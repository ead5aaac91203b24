export * from './code-grant-server';
export * from './github-shaped-provider';
export * from './discord-shaped-provider';
export * from './openid-provider';
export * from './browser';
