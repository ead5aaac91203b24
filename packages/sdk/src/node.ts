// `@svc/sdk/node`: what only Node can run, kept out of the main entry so the client still loads in
// any runtime with fetch. Pass it as `createSvcClient({ request: undiciRequester(), ... })`.
export { undiciRequester, type UndiciRequesterOptions } from './undici-requester';
