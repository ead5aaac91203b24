import { formatApiKey } from '../src/domain/api-key';
import { serviceWithProject } from './helpers';

describe('resolveApiKey', () => {
  it('maps each prefix to its environment', async () => {
    const { production, sandbox, created } = await serviceWithProject();
    expect(created.apiKeys.production).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(created.apiKeys.sandbox).toMatch(/^svc_sbx_[A-Za-z0-9_-]{43}$/);
    expect(production.scope).toEqual({ projectId: created.project.id, environment: 'production' });
    expect(sandbox.scope).toEqual({ projectId: created.project.id, environment: 'sandbox' });
  });

  it('answers missing_api_key without a key and invalid_api_key for bad ones', async () => {
    const { service, created } = await serviceWithProject();
    await expect(service.resolveApiKey(undefined)).rejects.toMatchObject({ code: 'missing_api_key' });
    await expect(service.resolveApiKey('')).rejects.toMatchObject({ code: 'missing_api_key' });
    const secret = created.apiKeys.production.slice('svc_live_'.length);
    for (const bad of [`svc_test_${secret}`, secret, `svc_sbx_${secret}`, formatApiKey('production', new Uint8Array(32))]) {
      await expect(service.resolveApiKey(bad)).rejects.toMatchObject({ code: 'invalid_api_key' });
    }
  });

  it('stops accepting a revoked key within the 10 s cache', async () => {
    const { service, created, deps } = await serviceWithProject();
    const extra = await service.admin.createApiKey(created.project.id, 'sandbox');
    await expect(service.resolveApiKey(extra.key)).resolves.toBeDefined();
    await service.admin.revokeApiKey(created.project.id, extra.id);
    deps.clock.advance(10);
    await expect(service.resolveApiKey(extra.key)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });

  it('stores only the hash and a short suffix of each key', async () => {
    const { service, created } = await serviceWithProject();
    const keys = await service.admin.listApiKeys(created.project.id);
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(JSON.stringify(key)).not.toContain(created.apiKeys[key.environment].slice(9, 30));
      expect(created.apiKeys[key.environment].endsWith(key.suffix)).toBe(true);
    }
  });
});
