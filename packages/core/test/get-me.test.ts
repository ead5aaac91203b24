import { createPrivateKey, sign } from 'node:crypto';
import { PASSWORD, serviceWithProject } from './helpers';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('getMe and access-token verification', () => {
  it('refuses tokens of the other environment and of another project', async () => {
    const { service, production, sandbox } = await serviceWithProject();
    const prod = await service.signUp(production, { email: 'p@example.test', password: PASSWORD });
    const sb = await service.signUp(sandbox, { email: 's@example.test', password: PASSWORD });
    await expect(service.getMe(sandbox, prod.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(service.getMe(production, sb.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    const other = await service.admin.createProject({ name: 'Other' });
    const otherKey = await service.resolveApiKey(other.apiKeys.production);
    await expect(service.getMe(otherKey, prod.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('accepts a token up to 60 s past exp and refuses it after', async () => {
    const { service, production, deps } = await serviceWithProject({ accessTokenTtlSeconds: 300 });
    const { accessToken } = await service.signUp(production, { email: 'a@example.test', password: PASSWORD });
    deps.clock.advance(359);
    await expect(service.getMe(production, accessToken)).resolves.toBeDefined();
    deps.clock.advance(1);
    await expect(service.getMe(production, accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('checks issuer and claims even when the signature is good', async () => {
    const { service, production, deps } = await serviceWithProject();
    const key = (await deps.signingKeys.current(production.scope))!;
    const pem = Buffer.from(key.encryptedPrivateKey.replace('fake-unencrypted.', ''), 'base64').toString('utf8');
    const now = Math.floor(deps.clock.now().getTime() / 1000);
    const forge = (claims: object) => {
      const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${b64(claims)}`;
      return `${input}.${sign('sha256', Buffer.from(input), createPrivateKey(pem)).toString('base64url')}`;
    };
    const good = { iss: deps.settings.issuer, sub: 'u', aud: production.scope.projectId, env: 'production', sid: 's', email: 'e', role: 'user', iat: now, exp: now + 60, jti: 'j' };
    await expect(service.verifyAccessToken(production.scope, forge(good))).resolves.toMatchObject({ sub: 'u' });
    for (const bad of [{ iss: 'https://evil.test' }, { aud: 'other' }, { env: 'sandbox' }, { exp: 'soon' }, { sub: 5 }, { iat: now + 3600 }]) {
      await expect(service.verifyAccessToken(production.scope, forge({ ...good, ...bad }))).rejects.toMatchObject({
        code: 'invalid_token',
      });
    }
  });

  it('answers user_banned for a banned user and invalid_token for a deleted one or a logged-out session', async () => {
    const { service, production } = await serviceWithProject();
    const a = await service.signUp(production, { email: 'a@example.test', password: PASSWORD });
    await service.admin.banUser(production.scope, a.user.id);
    await expect(service.getMe(production, a.accessToken)).rejects.toMatchObject({ code: 'user_banned' });
    const b = await service.signUp(production, { email: 'b@example.test', password: PASSWORD });
    await service.admin.deleteUser(production.scope, b.user.id);
    await expect(service.getMe(production, b.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    const c = await service.signUp(production, { email: 'c@example.test', password: PASSWORD });
    await service.logOut(production, c.refreshToken);
    await expect(service.getMe(production, c.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(service.logOut(production, c.refreshToken)).resolves.toBeUndefined();
  });

  it('keeps old tokens valid across a signing-key rotation and publishes both keys', async () => {
    const { service, production, deps } = await serviceWithProject();
    const a = await service.signUp(production, { email: 'a@example.test', password: PASSWORD });
    deps.clock.advance(60);
    const rotated = await service.admin.rotateSigningKey(production.scope);
    await expect(service.getMe(production, a.accessToken)).resolves.toBeDefined();
    const b = await service.signUp(production, { email: 'b@example.test', password: PASSWORD });
    expect(JSON.parse(Buffer.from(b.accessToken.split('.')[0], 'base64url').toString()).kid).toBe(rotated.kid);
    const jwks = await service.jwks(production.scope);
    expect(jwks.keys).toHaveLength(2);
    expect(jwks.keys[0].kid).toBe(rotated.kid);
  });
});
