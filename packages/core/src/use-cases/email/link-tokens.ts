import { AuthError } from '../../errors';
import { environmentPrefix, splitEnvironmentPrefix, type Environment } from '../../domain/environment';
import type { LinkTemplate } from '../../domain/mail';
import type { Project } from '../../domain/project';
import { isBearerSecret, newBearerSecret } from '../../domain/secrets';
import type { Random } from '../../ports/random';

/**
 * Link tokens read `<kind>_<env>_<secret>`: `ml_live_…`, `ml_sbx_…` (magic link), `pr_live_…`,
 * `pr_sbx_…` (password reset), with 256 random bits as base64url. The environment is part of the
 * token because the magic-link verify call carries no API key: the marker names the one scope to
 * look in, so no lookup is made per environment. The whole string is what is hashed and stored,
 * so editing the marker yields a token that matches nothing.
 */
const KIND: Readonly<Record<LinkTemplate, string>> = { magic_link: 'ml', password_reset: 'pr', email_verification: 'ev', email_change: 'ec' };

/** The project setting each link is built from (docs/operating.md#the-e-mail-outbox: configured URLs only). */
export const LINK_SETTING: Readonly<Record<LinkTemplate, 'magicLinkUrl' | 'passwordResetUrl' | 'emailVerificationUrl'>> = {
  magic_link: 'magicLinkUrl',
  password_reset: 'passwordResetUrl',
  email_verification: 'emailVerificationUrl',
  // The same page confirms sign-ups and new addresses; the token's marker (ev_ / ec_) tells which.
  email_change: 'emailVerificationUrl',
};

export function newLinkToken(random: Random, template: LinkTemplate, environment: Environment): string {
  return environmentPrefix(KIND[template], environment) + newBearerSecret(random);
}

/** The environment a well-formed link token names, or null for anything else. */
export function environmentOfLinkToken(token: string, template: LinkTemplate): Environment | null {
  const split = splitEnvironmentPrefix(KIND[template], token);
  return split && isBearerSecret(split.rest) ? split.environment : null;
}

/**
 * The page of the customer's app the mail links to. Without one the request cannot be served:
 * 400 naming the setting, which tells the caller about its configuration, never about accounts.
 */
export function linkBaseOf(project: Project, template: LinkTemplate): string {
  const url = project[LINK_SETTING[template]];
  if (!url) {
    const setting = LINK_SETTING[template];
    throw new AuthError('validation_error', `The project has no ${setting}; set it in the project settings (PATCH /admin/projects/{id}).`, {
      details: { setting },
    });
  }
  return url;
}

/** `base` with `token` and `project` set in its query; its own query and path are kept. */
export function buildLink(base: string, token: string, projectId: string): string {
  const url = new URL(base);
  url.searchParams.set('token', token);
  url.searchParams.set('project', projectId);
  return url.href;
}
