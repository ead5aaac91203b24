import { hkdfSync } from 'node:crypto';
import { signingKeyContext, type KeyEncryption } from '@svc/adapters-crypto';
import { OidcProviderHost } from '@svc/adapters-oidc-provider';
import { createOidcService, projectOfNotice, type AuthDeps, type ChangeFeed, type OidcArtifactStore, type OidcClientStore } from '@svc/core';
import type { Logger } from 'pino';
import type { AppOidc } from '../http/app-deps';

/**
 * Builds the hosted OIDC provider over the same storage and keys as the rest of the
 * service: the issuers sign with the environments' own signing keys, opened by the crypto adapter.
 */
export async function buildOidc(parts: {
  storage: { oidcClients: OidcClientStore; oidcArtifacts: OidcArtifactStore };
  deps: Pick<AuthDeps, 'clock' | 'random' | 'projects' | 'users' | 'oneTimeTokens' | 'signingKeys'>;
  /** The issuers re-read their project and keys on a notice about them. */
  changes: ChangeFeed;
  encryption: KeyEncryption;
  masterKey: Buffer;
  baseUrl: string;
  logger: Logger;
}): Promise<AppOidc> {
  const deps = { ...parts.deps, oidcClients: parts.storage.oidcClients, oidcArtifacts: parts.storage.oidcArtifacts };
  const provider = await OidcProviderHost.create({
    deps,
    baseUrl: parts.baseUrl,
    openPrivateKey: (key) => parts.encryption.decrypt(key.encryptedPrivateKey, signingKeyContext(key)),
    // HKDF with its own label: the cookie key is tied to the master key but useless for anything else.
    cookieSecret: Buffer.from(hkdfSync('sha256', parts.masterKey, Buffer.alloc(0), 'svc oidc cookie keys v1', 32)),
    log: parts.logger,
  });
  parts.changes.subscribe((notice) => {
    if (notice.kind === 'project' || notice.kind === 'signing-keys' || notice.kind === 'everything') provider.forget(projectOfNotice(notice));
  });
  return { provider, service: createOidcService({ ...deps, oidcInteractions: provider }) };
}
