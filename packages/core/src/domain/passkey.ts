/** A WebAuthn credential (passkey) registered by a user. */
export interface Passkey {
  /** Our id (UUID): what the API lists and deletes by. */
  id: string;
  userId: string;
  /** The authenticator's credential id, base64url; unique within a tenant scope. */
  credentialId: string;
  /** The credential's COSE public key, base64url. Never sent to clients. */
  publicKey: string;
  /** The authenticator's signature counter as last seen; 0 for authenticators that keep none. */
  counter: number;
  /** Transport hints (`internal`, `usb`, `hybrid`, ...) passed back to browsers. */
  transports: string[];
  /** A label the user chose (or a default). */
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** How long a WebAuthn challenge (registration or sign-in) lives (docs/security.md). */
export const WEBAUTHN_CHALLENGE_TTL_SECONDS = 5 * 60;

/** Longest passkey label we keep. */
export const MAX_PASSKEY_NAME = 100;
