import type { MailTemplate } from './mail';

/** One template's overrides; a part left out falls back to the default. */
export interface EmailTemplateOverride {
  subject?: string;
  text?: string;
  html?: string;
}

/** Per-project overrides (the project's `emailTemplates` setting). */
export interface EmailTemplates {
  magicLink?: EmailTemplateOverride;
  passwordReset?: EmailTemplateOverride;
  emailVerification?: EmailTemplateOverride;
  emailChange?: EmailTemplateOverride;
}

/** The placeholders a template may use, written `{{name}}`. */
export interface EmailTemplateValues {
  link: string;
  projectName: string;
  expiresInMinutes: number;
  /** The mail's 6-digit code (domain/email-code.ts); empty in mails that carry none. */
  code?: string;
}

export const EMAIL_TEMPLATE_PLACEHOLDERS = ['link', 'projectName', 'expiresInMinutes', 'code'] as const;

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** Which key of `EmailTemplates` belongs to which mail; notices (no link) are not overridable. */
export const TEMPLATE_SETTING: Readonly<Partial<Record<MailTemplate, keyof EmailTemplates>>> = {
  magic_link: 'magicLink',
  password_reset: 'passwordReset',
  email_verification: 'emailVerification',
  email_change: 'emailChange',
};

const DEFAULTS: Readonly<Record<MailTemplate, Required<EmailTemplateOverride>>> = {
  magic_link: {
    subject: 'Your sign-in link for {{projectName}}',
    text:
      'Hello,\n\nuse this link to sign in to {{projectName}}:\n\n{{link}}\n\n' +
      'Or enter this code: {{code}}\n\n' +
      'It works once and expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this mail.\n',
    html:
      '<p>Hello,</p><p>use this link to sign in to {{projectName}}:</p>' +
      '<p><a href="{{link}}">Sign in to {{projectName}}</a></p>' +
      '<p>Or enter this code: <strong>{{code}}</strong></p>' +
      '<p>It works once and expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this mail.</p>',
  },
  password_reset: {
    subject: 'Reset your {{projectName}} password',
    text:
      'Hello,\n\nsomeone asked to reset the password of your {{projectName}} account. To choose a new one, open:\n\n' +
      '{{link}}\n\nThe link works once and expires in {{expiresInMinutes}} minutes. If it was not you, ignore this mail.\n',
    html:
      '<p>Hello,</p><p>someone asked to reset the password of your {{projectName}} account.</p>' +
      '<p><a href="{{link}}">Choose a new password</a></p>' +
      '<p>The link works once and expires in {{expiresInMinutes}} minutes. If it was not you, ignore this mail.</p>',
  },
  email_verification: {
    subject: 'Confirm your {{projectName}} e-mail address',
    text:
      'Hello,\n\nsomeone signed up to {{projectName}} with this address. If it was you, confirm it:\n\n{{link}}\n\n' +
      'Or enter this code: {{code}}\n\n' +
      'It works once and expires in {{expiresInMinutes}} minutes. If it was not you, ignore this mail: nothing is confirmed.\n',
    html:
      '<p>Hello,</p><p>someone signed up to {{projectName}} with this address. If it was you, confirm it:</p>' +
      '<p><a href="{{link}}">Confirm my address</a></p>' +
      '<p>Or enter this code: <strong>{{code}}</strong></p>' +
      '<p>It works once and expires in {{expiresInMinutes}} minutes. If it was not you, ignore this mail: nothing is confirmed.</p>',
  },
  email_change: {
    subject: 'Confirm your new {{projectName}} e-mail address',
    text:
      'Hello,\n\nyou asked to use this address for your {{projectName}} account. To confirm it, open:\n\n{{link}}\n\n' +
      'Or enter this code: {{code}}\n\n' +
      'It works once and expires in {{expiresInMinutes}} minutes. If it was not you, ignore this mail: nothing changes.\n',
    html:
      '<p>Hello,</p><p>you asked to use this address for your {{projectName}} account.</p>' +
      '<p><a href="{{link}}">Confirm the new address</a></p>' +
      '<p>Or enter this code: <strong>{{code}}</strong></p>' +
      '<p>It works once and expires in {{expiresInMinutes}} minutes. If it was not you, ignore this mail: nothing changes.</p>',
  },
  email_change_notice: {
    subject: 'The e-mail address of your {{projectName}} account is being changed',
    text:
      'Hello,\n\nsomeone signed in to your {{projectName}} account asked to move it to another e-mail address. ' +
      'It changes once that address is confirmed. If it was not you, sign in, change your password and sign out your other devices.\n',
    html:
      '<p>Hello,</p><p>someone signed in to your {{projectName}} account asked to move it to another e-mail address. ' +
      'It changes once that address is confirmed.</p><p>If it was not you, sign in, change your password and sign out your other devices.</p>',
  },
  refresh_token_reused: {
    subject: 'Your {{projectName}} account was signed out as a precaution',
    text:
      'Hello,\n\nan old sign-in token of your {{projectName}} account was used again, which can mean that someone else holds a copy of it. ' +
      'As a precaution we signed the account out. Sign in again; if you do not recognise this, change your password.\n',
    html:
      '<p>Hello,</p><p>an old sign-in token of your {{projectName}} account was used again, which can mean that someone else holds a copy of it.</p>' +
      '<p>As a precaution we signed the account out. Sign in again; if you do not recognise this, change your password.</p>',
  },
  password_changed: {
    subject: 'Your {{projectName}} password was changed',
    text: 'Hello,\n\nthe password of your {{projectName}} account was just changed, and your other devices were signed out. ' + 'If it was not you, reset your password at once.\n',
    html: '<p>Hello,</p><p>the password of your {{projectName}} account was just changed, and your other devices were signed out.</p>' + '<p>If it was not you, reset your password at once.</p>',
  },
};

/**
 * Renders one mail: the project's override where it has one, the default otherwise. Values are
 * HTML-escaped in the html part, and line breaks are removed from the subject (it becomes a
 * header, where a line break would start a new one).
 */
export function renderEmail(template: MailTemplate, overrides: EmailTemplates | null, values: EmailTemplateValues): RenderedEmail {
  const setting = TEMPLATE_SETTING[template];
  const own = (setting && overrides?.[setting]) ?? {};
  const parts = { ...DEFAULTS[template], ...definedOnly(own) };
  const plain = stringValues(values);
  const escaped = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, escapeHtml(v)]));
  return {
    subject: fill(parts.subject, plain)
      .replace(/[\r\n]+/g, ' ')
      .trim(),
    text: fill(parts.text, plain),
    html: fill(parts.html, escaped),
  };
}

/** Placeholders in `text` that are not known (a typo in an override is reported, not sent). */
export function unknownPlaceholders(text: string): string[] {
  const names = [...text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].map((m) => m[1]);
  return names.filter((name) => !(EMAIL_TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name));
}

const TEMPLATE_KEYS: readonly (keyof EmailTemplates)[] = ['magicLink', 'passwordReset', 'emailVerification', 'emailChange'];
/** Longest text of each part: a subject is a header line; the bodies are mail, not documents. */
const PART_LIMITS: Readonly<Record<keyof EmailTemplateOverride, number>> = { subject: 200, text: 20_000, html: 100_000 };
const PARTS = Object.keys(PART_LIMITS) as (keyof EmailTemplateOverride)[];

/**
 * Why `value` cannot be a project's `emailTemplates` setting, or null (null itself clears it).
 * It must be `{ magicLink?: {subject?, text?, html?}, passwordReset?, emailVerification?, emailChange? }` of bounded,
 * non-empty texts; and it must make usable mail: a text or html part carries the link (a mail
 * without it is useless), and every placeholder is a known one.
 */
export function emailTemplatesProblem(value: unknown): string | null {
  if (value === null) return null;
  if (!isObject(value)) return 'emailTemplates must be an object or null.';
  for (const [key, template] of Object.entries(value)) {
    if (!(TEMPLATE_KEYS as readonly string[]).includes(key)) return `emailTemplates.${key} is not a template (templates: ${TEMPLATE_KEYS.join(', ')}).`;
    if (!isObject(template)) return `emailTemplates.${key} must be an object.`;
    for (const [part, text] of Object.entries(template)) {
      if (!(PARTS as string[]).includes(part)) return `emailTemplates.${key}.${part} is not a template part (parts: ${PARTS.join(', ')}).`;
      const limit = PART_LIMITS[part as keyof EmailTemplateOverride];
      if (typeof text !== 'string' || text.length === 0) return `emailTemplates.${key}.${part} must be a non-empty string.`;
      if (text.length > limit) return `emailTemplates.${key}.${part} must be at most ${limit} characters.`;
    }
  }
  return usableTemplatesProblem(value as EmailTemplates);
}

function usableTemplatesProblem(templates: EmailTemplates): string | null {
  for (const key of TEMPLATE_KEYS) {
    const own = templates[key];
    if (!own) continue;
    for (const part of PARTS) {
      const value = own[part];
      if (value === undefined) continue;
      const unknown = unknownPlaceholders(value);
      if (unknown.length) return `emailTemplates.${key}.${part} uses an unknown placeholder {{${unknown[0]}}} (known: ${EMAIL_TEMPLATE_PLACEHOLDERS.join(', ')}).`;
      if (part !== 'subject' && !/\{\{\s*link\s*\}\}/.test(value)) return `emailTemplates.${key}.${part} must contain {{link}}.`;
    }
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function fill(template: string, values: Record<string, string>): string {
  // One pass: a value that itself contains "{{link}}" is not expanded again.
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name] : whole));
}

function stringValues(values: EmailTemplateValues): Record<string, string> {
  return { link: values.link, projectName: values.projectName, expiresInMinutes: String(values.expiresInMinutes), code: values.code ?? '' };
}

function definedOnly(override: EmailTemplateOverride): EmailTemplateOverride {
  return Object.fromEntries(Object.entries(override).filter(([, v]) => typeof v === 'string' && v.length > 0));
}
