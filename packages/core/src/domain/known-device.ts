import type { TenantScope } from './environment';
import { sha256Hex } from './secrets';

/**
 * Known clients (OWASP's "device cookie" against lockout): a client address or a device id that
 * completed a sign-in to an account is "known" to that account for a while, and failures from
 * elsewhere do not lock it out (docs/security.md, "Rate limits"). Stored only as fingerprints.
 */

/** How long a known client stays known after its last sign-in (the janitor deletes it after). */
export const KNOWN_DEVICE_RETENTION_SECONDS = 90 * 24 * 60 * 60;

/** Known clients kept per user (the most recently seen): an address and a device per sign-in. */
export const KNOWN_DEVICES_PER_USER = 20;

/** Device ids are the caller's opaque value: 1 to 128 printable ASCII characters, no spaces. */
const DEVICE_ID = /^[\x21-\x7e]{1,128}$/;

/** True for a usable device id (`X-Svc-Device-Id`); anything else is treated as no device id. */
export function isDeviceId(value: unknown): value is string {
  return typeof value === 'string' && DEVICE_ID.test(value);
}

/** The client of a sign-in as the edge knows it. */
export interface SignInClient {
  /** The end user's address as rate limits count it (IPv4, or the /64 of IPv6). */
  address?: string;
  /** The caller's device id, already checked with {@link isDeviceId}. */
  deviceId?: string;
  /** The end user's User-Agent, for the device list only (not a fingerprint). */
  userAgent?: string;
}

/**
 * What is stored and looked up for `client` of `userId`: SHA-256 over tenant, user, kind and
 * value, so no address or device id is stored, and a fingerprint means nothing for another
 * account. (An IPv4 address can still be found again by hashing all 2^32 for one user: a copy of
 * the table tells which addresses an account signed in from only with that effort, per user.)
 */
export function clientFingerprints(scope: TenantScope, userId: string, client: SignInClient): string[] {
  const of = (kind: string, value: string) => sha256Hex(`known-device:${scope.projectId}:${scope.environment}:${userId}:${kind}:${value}`);
  const fingerprints: string[] = [];
  if (client.address) fingerprints.push(of('address', client.address));
  if (client.deviceId && isDeviceId(client.deviceId)) fingerprints.push(of('device', client.deviceId));
  return fingerprints;
}

/** Known clients seen before this are no longer known. */
export function knownSince(now: Date): Date {
  return new Date(now.getTime() - KNOWN_DEVICE_RETENTION_SECONDS * 1000);
}
