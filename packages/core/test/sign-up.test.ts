import { isAuthError } from '../src/errors';
import { PASSWORD, serviceWithProject } from './helpers';

describe('signUp', () => {
  it('normalises the e-mail and merges meta over the project defaults (request wins)', async () => {
    const { service, production, created } = await serviceWithProject({ defaultMeta: { tier: 'free', lang: 'en' } });
    const result = await service.signUp(production, { email: '  Ada@Example.TEST ', password: PASSWORD, meta: { lang: 'fr' } });
    expect(result.user.email).toBe('ada@example.test');
    expect(result.user.meta).toEqual({ tier: 'free', lang: 'fr' });
    expect(result.user.role).toBe('user');
    expect(result.expiresIn).toBe(900);
    expect(created.project.defaultMeta).toEqual({ tier: 'free', lang: 'en' });
    expect((await service.getMe(production, result.accessToken)).id).toBe(result.user.id);
  });

  it('refuses an existing e-mail in any letter case, and a banned one with user_banned', async () => {
    const { service, production } = await serviceWithProject();
    const { user } = await service.signUp(production, { email: 'bob@example.test', password: PASSWORD });
    await expect(service.signUp(production, { email: 'BOB@example.test', password: PASSWORD })).rejects.toMatchObject({
      code: 'user_already_exists',
    });
    await service.admin.banUser(production.scope, user.id);
    await expect(service.signUp(production, { email: 'bob@example.test', password: PASSWORD })).rejects.toMatchObject({
      code: 'user_banned',
    });
  });

  it('keeps environments apart: the same e-mail may sign up in sandbox', async () => {
    const { service, production, sandbox } = await serviceWithProject();
    await service.signUp(production, { email: 'c@example.test', password: PASSWORD });
    await expect(service.signUp(sandbox, { email: 'c@example.test', password: PASSWORD })).resolves.toBeDefined();
  });

  it('holds the production limit under concurrency and never limits sandbox', async () => {
    const { service, production, sandbox } = await serviceWithProject({ userLimit: 3 });
    await service.signUp(production, { email: 'u1@example.test', password: PASSWORD });
    await service.signUp(production, { email: 'u2@example.test', password: PASSWORD });
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => service.signUp(production, { email: `r${i}@example.test`, password: PASSWORD })));
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    const refused = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(refused.every((a) => isAuthError(a.reason, 'plan_limit_reached'))).toBe(true);
    for (let i = 0; i < 5; i += 1) await service.signUp(sandbox, { email: `s${i}@example.test`, password: PASSWORD });
  });

  it('uses the plan limit when the project has no override', async () => {
    const { service, production, deps } = await serviceWithProject({ plan: 'SOLO' });
    deps.settings.planUserLimits = { FREE: 1, SOLO: 1, PRO: null };
    await service.signUp(production, { email: 'one@example.test', password: PASSWORD });
    await expect(service.signUp(production, { email: 'two@example.test', password: PASSWORD })).rejects.toMatchObject({
      code: 'plan_limit_reached',
    });
  });
});
