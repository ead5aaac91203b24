import { loadOidcAccount, oidcClaimsOf, startOidcLogin, type OidcDeps, type Project } from '@svc/core';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { environmentOfClient } from './client-metadata';
import type { OidcModule } from './oidc-module';

export type HandoffDeps = Pick<OidcDeps, 'clock' | 'random' | 'users' | 'oneTimeTokens'>;

/**
 * The interaction policy: oidc-provider's own prompts plus three checks of ours on the login
 * prompt. The project's login page decides every authorization (there is no provider-side single
 * sign-on: the customer's login UI keeps its own session and may approve at once), so `login` is
 * requested until this very interaction brought a login result; prompt=none therefore answers
 * login_required. Requests without `openid` are refused with invalid_scope (this is an OpenID
 * provider), and so is every request while the project has no oidcLoginUrl (temporarily_unavailable).
 */
export function loginPolicy(mod: OidcModule, project: () => Project): NonNullable<Configuration['interactions']>['policy'] {
  const { interactionPolicy, errors } = mod;
  const { Check } = interactionPolicy;
  const policy = interactionPolicy.base();
  const login = policy.get('login')!;
  login.checks.add(
    new Check('openid_scope_required', 'the openid scope is required', (ctx: KoaContextWithOIDC) => {
      const scopes = String(ctx.oidc.params?.scope ?? '').split(' ');
      if (!scopes.includes('openid')) throw new errors.InvalidScope('the openid scope is required', 'openid');
      return Check.NO_NEED_TO_PROMPT;
    }),
  );
  login.checks.add(
    new Check('login_page_configured', 'the project has no login page', () => {
      if (!project().oidcLoginUrl) throw new errors.TemporarilyUnavailable('the project has no oidcLoginUrl configured');
      return Check.NO_NEED_TO_PROMPT;
    }),
  );
  login.checks.add(
    new Check('project_login_page', 'the project login page decides every authorization', (ctx: KoaContextWithOIDC) => (ctx.oidc.result?.login ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT)),
  );
  return policy;
}

/** interactions.url: the project's login page with a fresh request token (see startOidcLogin). */
export function loginPageUrl(deps: HandoffDeps, project: () => Project): NonNullable<Configuration['interactions']>['url'] {
  return async (ctx, interaction) => {
    const client = ctx.oidc.client!;
    const { oidcLoginUrl, id } = project();
    return startOidcLogin(deps, {
      loginUrl: oidcLoginUrl!,
      client: { clientId: client.clientId, projectId: id, environment: environmentOfClient(client), name: client.clientName ?? client.clientId },
      uid: interaction.uid,
      scopes: String(interaction.params.scope ?? '')
        .split(' ')
        .filter(Boolean),
    });
  };
}

/**
 * findAccount: the live user in the client's environment (docs/decisions.md#contract-clarifications), on every code exchange,
 * refresh and userinfo call; a deleted or banned user makes them fail. `sub` is the user id.
 */
export function findAccount(deps: HandoffDeps, projectId: string): NonNullable<Configuration['findAccount']> {
  return async (ctx, sub) => {
    const client = ctx.oidc.client;
    if (!client) return undefined;
    const user = await loadOidcAccount(deps, { projectId, environment: environmentOfClient(client) }, sub);
    if (!user) return undefined;
    const claims = oidcClaimsOf(user);
    return { accountId: user.id, claims: () => ({ ...claims, sub: user.id }) };
  };
}
