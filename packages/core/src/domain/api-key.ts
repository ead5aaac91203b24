import type { Environment } from './environment';
import { sha256Hex, toBase64Url } from './secrets';

export const API_KEY_PREFIXES: Record<Environment, string> = {
  production: 'svc_live_',
  sandbox: 'svc_sbx_',
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

/** The environment a key's prefix selects, or null for any other prefix (contract rule 5). */
export function environmentOfApiKey(key: string): Environment | null {
  if (key.startsWith(API_KEY_PREFIXES.production)) return 'production';
  if (key.startsWith(API_KEY_PREFIXES.sandbox)) return 'sandbox';
  return null;
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
