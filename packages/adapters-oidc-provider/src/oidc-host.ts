import type { ServerResponse } from 'node:http';
import { hasOidcProvider, type OidcInteractionGateway, type PendingOidcAuthorization, type ProjectRepository, type SigningKeyStore } from '@svc/core';
import { approveAuthorization, denyAuthorization, pendingAuthorization } from './interaction-gateway';
import { IssuerRegistry } from './issuer-registry';
import type { IssuerContext, OidcLog, ProjectIssuer } from './project-issuer';
import { BodyTooLarge, pinToIssuer, routeBySigner, writeOAuthError, type HostRequest } from './request-routing';
import type { PrivateKeyOpener } from './signing-jwks';

export interface OidcHostOptions {
  deps: IssuerContext['deps'] & { projects: ProjectRepository; signingKeys: SigningKeyStore };
  /** The service's public base URL (SVC_BASE_URL); issuers are `{baseUrl}/api/oidc/{projectId}`. */
  baseUrl: string;
  /** Decrypts a stored signing key to PEM (the crypto adapter's KeyEncryption). */
  openPrivateKey: PrivateKeyOpener;
  /** Keys the provider's signed cookies; the same on every instance (derive it from the master key). */
  cookieSecret: Buffer;
  log: OidcLog;
  /** Seconds an issuer is used at most before its project and keys are read again (`forget` is at once). Default 10 (as API keys). */
  refreshSeconds?: number;
  /** Issuers kept in memory at most. Default 200. */
  maxProjects?: number;
}

/** Expired artifacts are swept at most this often, by whichever request comes along. */
const SWEEP_INTERVAL_MS = 5 * 60 * 1000;
const SWEEP_BATCH = 1000;

/**
 * The hosted OIDC provider (docs/decisions.md#hosted-oidc-provider): serves `{base}/api/oidc/{projectId}/*` for Pro projects
 * on plain Node request/response objects (any framework can mount it) and finishes login-page
 * hand-offs for `POST /api/auth/oidc/grant` (OidcInteractionGateway).
 */
export class OidcProviderHost implements OidcInteractionGateway {
  private readonly registry: IssuerRegistry;
  private lastSweep = 0;

  private constructor(
    private readonly options: OidcHostOptions,
    context: IssuerContext,
  ) {
    this.registry = new IssuerRegistry(context, {
      projects: options.deps.projects,
      signingKeys: options.deps.signingKeys,
      refreshMs: (options.refreshSeconds ?? 10) * 1000,
      maxProjects: options.maxProjects ?? 200,
    });
  }

  /**
   * The host. Issuers, and oidc-provider itself (ESM, dynamic import), are loaded on first use, so
   * processes that never serve OIDC (the CLI) do not pay for them.
   */
  static async create(options: OidcHostOptions): Promise<OidcProviderHost> {
    const { deps, baseUrl, openPrivateKey, cookieSecret, log } = options;
    return new OidcProviderHost(options, { deps, baseUrl, openPrivateKey, cookieSecret, log });
  }

  /**
   * Serves one request for the project's issuer; `req.url` is the path below the issuer. Unknown
   * project: 404; project below Pro: 403 `access_denied`; both as `{ error, error_description }`.
   */
  async handle(req: HostRequest, res: ServerResponse, projectId: string): Promise<void> {
    try {
      this.sweepExpired();
      const issuer = await this.registry.get(projectId);
      if (!issuer) return writeOAuthError(res, 404, 'invalid_request', 'There is no OIDC issuer at this address.');
      if (!hasOidcProvider(issuer.project.plan)) {
        return writeOAuthError(res, 403, 'access_denied', 'The hosted OIDC provider needs the Pro plan (plan_upgrade_required).');
      }
      const routed = await routeBySigner(req, projectId, this.options.deps.oidcClients);
      pinToIssuer(routed.req, issuer.url);
      await issuer.handlers[routed.environment](routed.req, res);
    } catch (error) {
      if (error instanceof BodyTooLarge) return writeOAuthError(res, 413, 'invalid_request', 'The request body is too large.');
      this.options.log.error({ err: error, projectId }, 'OIDC request failed');
      if (!res.headersSent) writeOAuthError(res, 500, 'server_error', 'An internal error occurred.');
    }
  }

  /** The project's issuer (every one for null) reads its project and keys again on its next request. */
  forget(projectId: string | null): void {
    this.registry.forget(projectId);
  }

  async pending(projectId: string, uid: string): Promise<PendingOidcAuthorization | null> {
    return pendingAuthorization(await this.provider(projectId), uid);
  }

  async approve(projectId: string, uid: string, decision: { userId: string; scopes: string[] }): Promise<string> {
    return approveAuthorization(await this.provider(projectId), uid, decision);
  }

  async deny(projectId: string, uid: string): Promise<string> {
    return denyAuthorization(await this.provider(projectId), uid);
  }

  /** Interactions and grants sign nothing, so either environment's provider serves them. */
  private async provider(projectId: string): Promise<ProjectIssuer['providers']['production']> {
    const issuer = await this.registry.get(projectId);
    if (!issuer) throw new Error(`no OIDC issuer for project ${projectId}`);
    return issuer.providers.production;
  }

  private sweepExpired(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    this.options.deps.oidcArtifacts.deleteExpired(new Date(now), SWEEP_BATCH).catch((error: unknown) => this.options.log.error({ err: error }, 'sweeping expired OIDC artifacts failed'));
  }
}
