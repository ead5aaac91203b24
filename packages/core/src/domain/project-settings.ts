import { emailTemplatesProblem } from './email-templates';
import { EMAIL_VERIFICATION_MODES, isPlan, PLANS, type ProjectSettings, type TokenLifetimes } from './project';
import { appUrlMessage, isAppUrl, isOrigin, originMessage } from './redirect-url';
import { webAuthnSettingsProblem } from './relying-party';
import { AUDIT_RETENTION_DAYS, REFRESH_REUSE_RESPONSES } from './security-event';
import { displayNameProblem } from './text';
import { rateLimitOverridesProblem } from './rate-limit-overrides';
import { userMetaProblem } from './user';

/** Entries of `allowedOrigins` and of `redirectUrls`, at most. */
export const MAX_PROJECT_LIST = 100;

/** The range of each lifetime, in seconds. */
export const TOKEN_LIFETIME_BOUNDS: Readonly<Record<keyof TokenLifetimes, { min: number; max: number }>> = {
  accessTokenTtlSeconds: { min: 60, max: 86_400 },
  refreshTokenTtlSeconds: { min: 300, max: 31_536_000 },
  refreshReuseGraceSeconds: { min: 0, max: 60 },
  // Up to ten years, for projects that want no practical limit.
  absoluteSessionLifetimeSeconds: { min: 300, max: 315_360_000 },
};

/** The range of `recentSignInSeconds`: 0 asks for a proof on every sensitive change; at most a day. */
export const RECENT_SIGN_IN_BOUNDS = { min: 0, max: 86_400 } as const;

type Check = (value: unknown, field: string) => string | null;

/**
 * The rule of each setting, in the order they are checked (the first problem is reported). A
 * setting left out (undefined) is not checked; `null` clears the nullable ones and is refused by
 * the others' checks.
 */
const CHECKS: Readonly<Record<keyof ProjectSettings, Check>> = {
  name: displayNameProblem,
  plan: (value, field) => (isPlan(value) ? null : `${field} must be one of ${PLANS.join(', ')}.`),
  allowedOrigins: listOf(isOrigin, originMessage),
  defaultMeta: userMetaProblem,
  redirectUrls: listOf(isAppUrl, appUrlMessage),
  magicLinkUrl: nullable(appUrlProblem),
  passwordResetUrl: nullable(appUrlProblem),
  oidcLoginUrl: nullable(appUrlProblem),
  webauthn: nullable(webAuthnSettingsProblem),
  emailTemplates: nullable(emailTemplatesProblem),
  userLimit: nullable((value, field) => {
    if (!Number.isInteger(value)) return `${field} must be an integer or null.`;
    return (value as number) < 0 ? `${field} must not be negative.` : null;
  }),
  accessTokenTtlSeconds: lifetimeProblem,
  refreshTokenTtlSeconds: lifetimeProblem,
  refreshReuseGraceSeconds: lifetimeProblem,
  absoluteSessionLifetimeSeconds: lifetimeProblem,
  rejectCommonPasswords: booleanProblem,
  rateLimits: nullable(rateLimitOverridesProblem),
  auditRetentionDays: (value, field) => {
    const { min, max } = AUDIT_RETENTION_DAYS;
    return Number.isInteger(value) && (value as number) >= min && (value as number) <= max ? null : `${field} must be an integer from ${min} to ${max}.`;
  },
  refreshReuseResponse: (value, field) => ((REFRESH_REUSE_RESPONSES as readonly unknown[]).includes(value) ? null : `${field} must be one of ${REFRESH_REUSE_RESPONSES.join(', ')}.`),
  refreshReuseNotice: booleanProblem,
  emailVerification: (value, field) => ((EMAIL_VERIFICATION_MODES as readonly unknown[]).includes(value) ? null : `${field} must be one of ${EMAIL_VERIFICATION_MODES.join(', ')}.`),
  emailVerificationUrl: nullable(appUrlProblem),
  recentSignInSeconds: (value, field) => {
    const { min, max } = RECENT_SIGN_IN_BOUNDS;
    if (!Number.isInteger(value)) return `${field} must be an integer.`;
    return (value as number) < min || (value as number) > max ? `${field} must be from ${min} to ${max}.` : null;
  },
};

function booleanProblem(value: unknown, field: string): string | null {
  return typeof value === 'boolean' ? null : `${field} must be true or false.`;
}

/**
 * Why `settings` cannot be saved on a project, as a message naming the first bad field, or null.
 * Creating a project needs its name; an update checks only the fields it sets. This is the one
 * home of every setting's rule: any host of core gets it (the HTTP edge only checks that the body
 * is a JSON object of known fields).
 */
export function projectSettingsProblem(settings: ProjectSettings, options: { creating: boolean }): string | null {
  const given = settings as Record<string, unknown>;
  if (options.creating && (given.name === undefined || given.name === null)) return 'name is required.';
  for (const [field, check] of Object.entries(CHECKS)) {
    if (given[field] === undefined) continue;
    const problem = check(given[field], field);
    if (problem) return problem;
  }
  return null;
}

function appUrlProblem(value: unknown, field: string): string | null {
  return isAppUrl(value) ? null : appUrlMessage(field);
}

function lifetimeProblem(value: unknown, field: string): string | null {
  if (!Number.isInteger(value)) return `${field} must be an integer.`;
  const { min, max } = TOKEN_LIFETIME_BOUNDS[field as keyof TokenLifetimes];
  return (value as number) < min || (value as number) > max ? `${field} must be from ${min} to ${max}.` : null;
}

/** A list of at most MAX_PROJECT_LIST entries, each passing `isEntry`. */
function listOf(isEntry: (value: unknown) => boolean, message: (field: string, options: { each: boolean }) => string): Check {
  return (value, field) => {
    if (!Array.isArray(value)) return `${field} must be an array.`;
    if (value.length > MAX_PROJECT_LIST) return `${field} may hold at most ${MAX_PROJECT_LIST} entries.`;
    return value.every(isEntry) ? null : message(field, { each: true });
  };
}

/** A setting that null clears. */
function nullable(check: Check): Check {
  return (value, field) => (value === null ? null : check(value, field));
}
