import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsEmail, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateBy, type ValidationOptions } from 'class-validator';
import { AccountEmail, MAX_EMAIL, NewPassword, RequiredString } from './account-fields';
import { Trim } from './checks';

// Decorators read top-down as the order of checks: the error names the first one that fails.

/** Our link tokens are 51 characters; the bound only keeps garbage cheap. */
const MAX_TOKEN = 512;

/** MagicLinkRequest of the contract (endpoint 6). */
export class MagicLinkDto {
  @AccountEmail()
  email!: string;

  @IsOptional()
  @IsBoolean({ message: 'createIfNotExists must be a boolean.' })
  createIfNotExists?: boolean;
}

/** PasswordResetRequest of the contract (endpoint 8). */
export class PasswordResetDto {
  @AccountEmail()
  email!: string;
}

/** PasswordUpdateRequest of the contract (endpoint 9). */
export class PasswordUpdateDto {
  @RequiredString('token', { min: 1, max: MAX_TOKEN })
  token!: string;

  @NewPassword('newPassword')
  newPassword!: string;
}

/** Query of GET /admin/projects/{id}/environments/sandbox/outbox. */
export class SandboxOutboxQuery {
  @Trim()
  @IsDefined({ message: 'email is required.' })
  @IsString({ message: 'email must be a single string.' })
  @MaxLength(MAX_EMAIL, { message: `email must be at most ${MAX_EMAIL} characters.` })
  @IsEmail({}, { message: 'email must be a valid e-mail address.' })
  email!: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer from 1 to 50.' })
  @Min(1, { message: 'limit must be an integer from 1 to 50.' })
  @Max(50, { message: 'limit must be an integer from 1 to 50.' })
  limit?: number;
}

const TEMPLATE_KEYS = ['magicLink', 'passwordReset'];
const PART_LIMITS: Record<string, number> = { subject: 200, text: 20_000, html: 100_000 };

/** Why `value` is not `{ magicLink?: {subject?, text?, html?}, passwordReset?: {...} }`, or null. */
export function emailTemplatesShapeProblem(value: unknown): string | null {
  if (value === null) return null;
  if (!isObject(value)) return 'emailTemplates must be an object or null.';
  for (const [key, template] of Object.entries(value)) {
    if (!TEMPLATE_KEYS.includes(key)) return `emailTemplates.${key} is not a template (templates: ${TEMPLATE_KEYS.join(', ')}).`;
    if (!isObject(template)) return `emailTemplates.${key} must be an object.`;
    for (const [part, text] of Object.entries(template)) {
      if (!(part in PART_LIMITS)) return `emailTemplates.${key}.${part} is not a template part (parts: subject, text, html).`;
      if (typeof text !== 'string' || text.length === 0) return `emailTemplates.${key}.${part} must be a non-empty string.`;
      if (text.length > PART_LIMITS[part]) return `emailTemplates.${key}.${part} must be at most ${PART_LIMITS[part]} characters.`;
    }
  }
  return null;
}

/**
 * The project setting `emailTemplates` (null clears it). The shape is checked here; whether the
 * texts are usable (`{{link}}` present, known placeholders only) is core's rule.
 */
export function IsEmailTemplates(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isEmailTemplates',
      validator: {
        validate: (value) => emailTemplatesShapeProblem(value) === null,
        defaultMessage: (args) => emailTemplatesShapeProblem(args?.value) ?? 'emailTemplates is not valid.',
      },
    },
    options,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
