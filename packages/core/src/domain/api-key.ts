import { environmentPrefix, splitEnvironmentPrefix, type Environment } from './environment';
import { sha256Hex, toBase64Url } from './secrets';

const API_KEY_KIND = 'svc';

/** `svc_live_` (production) and `svc_sbx_` (sandbox). */
export const API_KEY_PREFIXES: Readonly<Record<Environment, string>> = {
  production: environmentPrefix(API_KEY_KIND, 'production'),
  sandbox: environmentPrefix(API_KEY_KIND, 'sandbox'),
};

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  environment: Environment;
  /** SHA-256 of the full key; the key itself is never stored. */
  keyHash: string;
  /** Last characters of the key, for display only. */
  suffix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The environment a key's prefix selects, or null for any other prefix (which is 401 invalid_api_key). */
export function environmentOfApiKey(key: string): Environment | null {
  return splitEnvironmentPrefix(API_KEY_KIND, key)?.environment ?? null;
}

export function formatApiKey(environment: Environment, secret: Uint8Array): string {
  return API_KEY_PREFIXES[environment] + toBase64Url(secret);
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export function apiKeySuffix(key: string): string {
  return key.slice(-4);
}
