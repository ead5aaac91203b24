import { createHmac } from 'node:crypto';
import { ENVIRONMENTS, oidcIssuerUrl, safeEqual, sha256Hex, type Environment, type OidcArtifactStore, type OidcClientStore, type Project } from '@svc/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { artifactAdapter } from './artifact-adapter';
import type { HandoffDeps } from './login-handoff';
import { loadOidcModule, type Provider } from './oidc-module';
import { providerConfiguration } from './provider-configuration';
import { signingJwks, type IssuerKeys, type PrivateKeyOpener } from './signing-jwks';

/** Where the issuer reports security-relevant moves and its own failures (pino-compatible). */
export interface OidcLog {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** What every project's issuer is built from. */
export interface IssuerContext {
  deps: HandoffDeps & { oidcClients: OidcClientStore; oidcArtifacts: OidcArtifactStore };
  baseUrl: string;
  openPrivateKey: PrivateKeyOpener;
  cookieSecret: Buffer;
  log: OidcLog;
}

/** One project's issuer: a provider per environment, identical but for the key each signs with. */
export interface ProjectIssuer {
  url: string;
  project: Project;
  /** Changes when the project or a signing key changes; the issuer is rebuilt then. */
  fingerprint: string;
  providers: Record<Environment, Provider>;
  handlers: Record<Environment, (req: IncomingMessage, res: ServerResponse) => Promise<void>>;
}

/**
 * Builds the issuer. oidc-provider signs with one keystore per Provider, and a flow must be signed
 * with its client's environment's key (docs/decisions.md#contract-clarifications), so there are two Providers sharing issuer,
 * storage, cookie keys and configuration; only their key order differs (signing-jwks.ts).
 */
export async function buildProjectIssuer(context: IssuerContext, project: Project, keys: IssuerKeys, fingerprint: string): Promise<ProjectIssuer> {
  const mod = await loadOidcModule();
  const url = oidcIssuerUrl(context.baseUrl, project.id);
  const adapter = artifactAdapter({
    projectId: project.id,
    artifacts: context.deps.oidcArtifacts,
    clients: context.deps.oidcClients,
    invalidGrant: (description) => new mod.errors.InvalidGrant(description),
  });
  // Signed cookies must verify on every instance and after a rebuild: derived, never random.
  const cookieKey = createHmac('sha256', context.cookieSecret).update(`svc-oidc-cookies:${project.id}`).digest('base64url');
  const providers = {} as Record<Environment, Provider>;
  const handlers = {} as ProjectIssuer['handlers'];
  for (const environment of ENVIRONMENTS) {
    const jwks = signingJwks(keys, environment, context.openPrivateKey);
    const provider = new mod.default(url, providerConfiguration({ mod, project: () => project, deps: context.deps, adapter, jwks, cookieKey, cookiePath: new URL(url).pathname }));
    prepare(provider, context.log, project.id);
    providers[environment] = provider;
    handlers[environment] = provider.callback() as ProjectIssuer['handlers'][Environment];
  }
  return { url, project, fingerprint, providers, handlers };
}

function prepare(provider: Provider, log: OidcLog, projectId: string): void {
  // Host and scheme come from SVC_BASE_URL through X-Forwarded-* that the host sets itself
  // (oidc-host.ts), never from the client's Host header.
  provider.proxy = true;
  // Stored client secrets are SHA-256 hashes (client-metadata.ts): hash what the client presents.
  // compareClientSecret is the provider's documented per-client comparison; this Client class
  // belongs to this Provider instance only.
  Object.defineProperty(provider.Client.prototype, 'compareClientSecret', {
    value(this: { clientSecret?: string }, presented: string): boolean {
      return typeof this.clientSecret === 'string' && typeof presented === 'string' && safeEqual(this.clientSecret, sha256Hex(presented));
    },
  });
  provider.on('server_error', (_ctx: unknown, error: unknown) => log.error({ err: error, projectId }, 'OIDC provider error'));
  provider.on('grant.revoked', (_ctx: unknown, grantId: string) => log.warn({ projectId, grantId }, 'OIDC grant revoked'));
  // A Koa 'error' listener replaces Koa's own console logging.
  (provider as unknown as NodeJS.EventEmitter).on('error', (error: unknown) => log.error({ err: error, projectId }, 'OIDC provider request failed'));
}
