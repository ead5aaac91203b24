import type { OidcArtifactStore, OidcClientStore } from '@svc/core';
import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';
import { clientMetadataOf } from './client-metadata';

/** Models whose artifacts hang off a grant (oidc-provider revokes them together). */
const GRANT_FAMILY = ['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest'];

export interface ArtifactAdapterOptions {
  projectId: string;
  artifacts: OidcArtifactStore;
  clients: OidcClientStore;
  /** oidc-provider's InvalidGrant, thrown when a consume loses the race (see consume). */
  invalidGrant(description: string): Error;
}

/**
 * oidc-provider's Adapter interface over our two ports, for one project's issuer. The `Client`
 * model reads registered clients (read-only: dynamic registration is off); every other model is a
 * row of the artifact store. Times follow oidc-provider's own clock (Date.now), since it computes
 * `expiresIn` and checks `exp` with it.
 */
export function artifactAdapter(options: ArtifactAdapterOptions): AdapterConstructor {
  const { projectId, artifacts, clients } = options;

  return class ArtifactAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      if (this.model === 'Client') throw new Error('OIDC clients are registered through the admin API');
      const { consumed: _consumed, ...rest } = payload;
      await artifacts.upsert(projectId, {
        model: this.model,
        id,
        payload: rest as Record<string, unknown>,
        grantId: typeof payload.grantId === 'string' ? payload.grantId : null,
        uid: this.model === 'Session' && typeof payload.uid === 'string' ? payload.uid : null,
        userCode: typeof payload.userCode === 'string' ? payload.userCode : null,
        expiresAt: typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000) : null,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') {
        const client = await clients.find(projectId, id);
        return client ? clientMetadataOf(client) : undefined;
      }
      return payloadOf(await artifacts.find(projectId, this.model, id, new Date()));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await artifacts.findByUid(projectId, this.model, uid, new Date()));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await artifacts.findByUserCode(projectId, this.model, userCode, new Date()));
    }

    /**
     * oidc-provider checks `consumed` and then consumes, two steps that two instances could both
     * pass with one code. Our consume is one conditional update; the loser is treated exactly like
     * a replay: the grant's whole family is revoked and the request fails with invalid_grant.
     */
    async consume(id: string): Promise<void> {
      if (await artifacts.consume(projectId, this.model, id, new Date())) return;
      const artifact = await artifacts.find(projectId, this.model, id, new Date());
      if (artifact?.grantId) await revokeGrant(artifacts, projectId, artifact.grantId);
      throw options.invalidGrant(`${this.model} already consumed`);
    }

    async destroy(id: string): Promise<void> {
      await artifacts.destroy(projectId, this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await artifacts.revokeByGrantId(projectId, this.model, grantId);
    }
  };
}

/** Deletes every token and code of the grant, and the grant itself. */
async function revokeGrant(artifacts: OidcArtifactStore, projectId: string, grantId: string): Promise<void> {
  await Promise.all(GRANT_FAMILY.map((model) => artifacts.revokeByGrantId(projectId, model, grantId)));
  await artifacts.destroy(projectId, 'Grant', grantId);
}

/** The stored payload as oidc-provider expects it back, with `consumed` (epoch seconds) when used. */
function payloadOf(artifact: Awaited<ReturnType<OidcArtifactStore['find']>>): AdapterPayload | undefined {
  if (!artifact) return undefined;
  const consumed = artifact.consumedAt ? { consumed: Math.floor(artifact.consumedAt.getTime() / 1000) } : {};
  return { ...(artifact.payload as AdapterPayload), ...consumed };
}
