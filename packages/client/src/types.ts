/** The user as the proxy answers it (the API's UserMe on `session()`, the sign-in shape elsewhere). */
export interface SessionUser {
  id: string;
  email: string;
  role: string;
  meta: Record<string, unknown>;
  emailVerified?: boolean;
  createdAt?: string;
  lastLoginAt?: string | null;
}

/** The current session: who is signed in, and whether the "powered by" badge must show. */
export interface Session {
  user: SessionUser;
  poweredByService: boolean;
}

/** A finished sign-in. The tokens are in HttpOnly cookies; page scripts never see them. */
export interface SignedIn {
  twoFactorRequired?: false;
  user: SessionUser;
  /** Seconds until the access cookie expires (the proxy refreshes it on `session()`). */
  expiresIn: number;
  /** Set on an OAuth sign-in. */
  provider?: string;
}

/** The password (or OAuth) step passed; a second factor is needed: call `verifyTotp`. */
export interface TwoFactorChallenge {
  twoFactorRequired: true;
  twoFactorToken: string;
  methods: string[];
}

export type SignInResult = SignedIn | TwoFactorChallenge;

/** TOTP enrolment: show `otpauthUrl` as a QR code (or `secret` for manual entry), then confirm a code. */
export interface TotpSetup {
  secret: string;
  otpauthUrl: string;
}

/**
 * The proof a sensitive change may carry when the sign-in is not recent (else the call rejects
 * with `reauthentication_required`): the current password, or a current TOTP code.
 */
export interface Reauthentication {
  currentPassword?: string;
  totpCode?: string;
}

/** One of the user's sessions (devices). */
export interface DeviceSession {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  address: string | null;
  userAgent: string | null;
  /** This browser's session. */
  current: boolean;
}
