// Public surface of @svc/client: the browser client of the svc session proxy.
export { createSessionClient, type SessionClient, type SessionClientOptions } from './create-session-client';
export { SessionError } from './session-error';
export type { DeviceSession, Reauthentication, Session, SessionUser, SignedIn, SignInResult, TotpSetup, TwoFactorChallenge } from './types';
