import type { IdentityRepository } from '../ports/identity-repository';
import type { KnownDeviceStore } from '../ports/known-device-store';
import type { MailOutbox } from '../ports/mail-outbox';
import type { OAuthProviderStore } from '../ports/oauth-provider-store';
import type { OidcArtifactStore } from '../ports/oidc-artifact-store';
import type { OidcClientStore } from '../ports/oidc-client-store';
import type { OneTimeTokenStore } from '../ports/one-time-token-store';
import type { PasskeyStore } from '../ports/passkey-store';
import type { TwoFactorStore } from '../ports/two-factor-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConsoleSignOutStore } from '../ports/console-sign-out-store';
import { consoleSignOutStoreContract } from './console-sign-out-store.contract';
import type { RateLimitStats } from '../ports/rate-limit-stats';
import { rateLimitStatsContract } from './rate-limit-stats.contract';
import { apiKeyRepositoryContract } from './api-key-repository.contract';
import { auditLogContract } from './audit-log.contract';
import { webhookStoreContract } from './webhook-store.contract';
import type { WebhookStore } from '../ports/webhook-store';
import { knownDeviceStoreContract } from './known-device-store.contract';
import { mailOutboxContract } from './mail-outbox.contract';
import { oauthStorageContract } from './oauth-storage.contract';
import { oidcArtifactStoreContract } from './oidc-artifact-store.contract';
import { oidcClientStoreContract } from './oidc-client-store.contract';
import { oneTimeTokenStoreContract } from './one-time-token-store.contract';
import { passkeyStoreContract } from './passkey-store.contract';
import { projectRepositoryContract } from './project-repository.contract';
import { sessionStoreContract } from './session-store.contract';
import { sessionDevicesContract } from './session-devices.contract';
import { signingKeyStoreContract } from './signing-key-store.contract';
import type { StoragePorts } from './storage-fixture';
import { twoFactorStoreContract } from './two-factor-store.contract';
import { userRepositoryContract } from './user-repository.contract';

/** Every storage port, as one storage adapter (one database) provides them. */
export interface AllStoragePorts extends StoragePorts {
  oneTimeTokens: OneTimeTokenStore;
  /** Shares the database with `oneTimeTokens`: a link's token and its mail are stored together. */
  outbox: MailOutbox;
  twoFactor: TwoFactorStore;
  passkeys: PasskeyStore;
  knownDevices: KnownDeviceStore;
  oauthProviders: OAuthProviderStore;
  identities: IdentityRepository;
  oidcClients: OidcClientStore;
  oidcArtifacts: OidcArtifactStore;
  auditLog: AuditLog;
  rateLimitStats: RateLimitStats;
  webhooks: WebhookStore;
  consoleSignOuts: ConsoleSignOutStore;
}

/** Opens a fresh storage (every port over one database) for one suite; `close` drops it. */
export type AllStorageFactory = () => Promise<{ ports: AllStoragePorts; close(): Promise<void> }>;

/**
 * Runs the contract suite of every storage port against one implementation, each suite on a
 * storage of its own: what an adapter family's test file calls once per database it supports.
 */
export function storageContracts(label: string, factory: AllStorageFactory): void {
  const withPorts = async () => {
    const opened = await factory();
    return { ...opened.ports, ports: opened.ports, close: () => opened.close() };
  };
  projectRepositoryContract(label, factory);
  apiKeyRepositoryContract(label, factory);
  userRepositoryContract(label, factory);
  sessionStoreContract(label, factory);
  sessionDevicesContract(label, factory);
  signingKeyStoreContract(label, factory);
  oneTimeTokenStoreContract(label, withPorts);
  mailOutboxContract(label, withPorts);
  twoFactorStoreContract(label, withPorts);
  passkeyStoreContract(label, withPorts);
  knownDeviceStoreContract(label, withPorts);
  consoleSignOutStoreContract(label, withPorts);
  oauthStorageContract(label, withPorts);
  oidcClientStoreContract(label, withPorts);
  oidcArtifactStoreContract(label, withPorts);
  auditLogContract(label, withPorts);
  rateLimitStatsContract(label, withPorts);
  webhookStoreContract(label, withPorts);
}
