import { createPrivateKey } from 'node:crypto';
import { CLOCK_LEEWAY_SECONDS, ENVIRONMENTS, type Environment, type Project, type SigningKeyRecord, type SigningKeyStore } from '@svc/core';
import type { JWK } from 'oidc-provider';

/** Opens a stored private key: the crypto adapter's decryption (core never reads private keys). */
export type PrivateKeyOpener = (key: SigningKeyRecord) => string;

/** The keys an issuer holds: every environment's published keys, and which one signs for which. */
export interface IssuerKeys {
  /** The current kid of each environment (the key its flows' ID tokens are signed with). */
  currentKid: Record<Environment, string>;
  /** Every published key of both environments, current ones first. */
  records: SigningKeyRecord[];
}

/**
 * Reads both environments' published keys (the current one and those retired less than a token
 * lifetime ago, as the API's own JWKS does), so the issuer's JWKS lists both environments' keys
 * (docs/decisions.md#contract-clarifications) and ID tokens signed before a rotation still verify.
 */
export async function loadIssuerKeys(signingKeys: SigningKeyStore, project: Project, now: Date): Promise<IssuerKeys> {
  // ID tokens live as long as access tokens (provider-configuration.ts).
  const since = new Date(now.getTime() - (project.accessTokenTtlSeconds + CLOCK_LEEWAY_SECONDS) * 1000);
  const currentKid = {} as Record<Environment, string>;
  const records: SigningKeyRecord[] = [];
  for (const environment of ENVIRONMENTS) {
    const keys = await signingKeys.listPublished({ projectId: project.id, environment }, since);
    const current = keys.find((key) => key.retiredAt === null);
    if (!current) throw new Error(`project ${project.id} has no ${environment} signing key`);
    currentKid[environment] = current.kid;
    records.push(current, ...keys.filter((key) => key !== current));
  }
  return { currentKid, records };
}

/**
 * The private JWKS of the provider that signs for `environment`. oidc-provider signs with the
 * first key that fits the algorithm (its key selection keeps configuration order), so that
 * environment's current key goes first; the rest are there to be published and to verify
 * `id_token_hint`s.
 */
export function signingJwks(keys: IssuerKeys, environment: Environment, open: PrivateKeyOpener): { keys: JWK[] } {
  const first = keys.records.filter((key) => key.kid === keys.currentKid[environment]);
  const rest = keys.records.filter((key) => key.kid !== keys.currentKid[environment]);
  return { keys: [...first, ...rest].map((key) => privateJwk(key, open)) };
}

function privateJwk(key: SigningKeyRecord, open: PrivateKeyOpener): JWK {
  const jwk = createPrivateKey(open(key)).export({ format: 'jwk' }) as JWK;
  return { ...jwk, kid: key.kid, alg: 'RS256', use: 'sig' };
}

/** Changes when a key is rotated in either environment: the issuer is then rebuilt. */
export function keysFingerprint(keys: IssuerKeys): string {
  return keys.records.map((key) => key.kid).join(',');
}
