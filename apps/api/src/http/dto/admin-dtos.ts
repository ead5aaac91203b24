import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsEmail, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min, MinLength } from 'class-validator';
import { ENVIRONMENTS, PLANS, type Environment, type Plan, type ProjectSettings, type WebAuthnSettings, type EmailTemplates } from '@svc/core';
import { IsAppUrl, IsOrigin, NoLineBreaks, OptionalNotNull, Trim } from './checks';
import { IsPlainJsonObject } from './plain-object';
import { IsWebAuthnSettings } from './webauthn-settings';
import { IsEmailTemplates } from './email-dtos';

// Decorators read top-down as the order of checks: the error names the first one that fails.
// Fields that may be cleared take null (IsOptional); the others only may be left out (OptionalNotNull).

const MAX_LIST = 100;

/** Project settings other than the name, shared by create and update (all optional). */
class ProjectFieldsDto {
  @OptionalNotNull()
  @IsIn(PLANS, { message: `plan must be one of ${PLANS.join(', ')}.` })
  plan?: Plan;

  @OptionalNotNull()
  @IsArray({ message: 'allowedOrigins must be an array.' })
  @ArrayMaxSize(MAX_LIST, { message: `allowedOrigins may hold at most ${MAX_LIST} entries.` })
  @IsOrigin({ each: true })
  allowedOrigins?: string[];

  @OptionalNotNull()
  @IsPlainJsonObject({ maxDepth: 5 })
  defaultMeta?: Record<string, unknown>;

  @OptionalNotNull()
  @IsArray({ message: 'redirectUrls must be an array.' })
  @ArrayMaxSize(MAX_LIST, { message: `redirectUrls may hold at most ${MAX_LIST} entries.` })
  @IsAppUrl({ each: true })
  redirectUrls?: string[];

  @IsOptional()
  @IsAppUrl()
  magicLinkUrl?: string | null;

  @IsOptional()
  @IsAppUrl()
  passwordResetUrl?: string | null;

  @IsOptional()
  @IsAppUrl()
  oidcLoginUrl?: string | null;

  /** Passkey relying party `{ rpId, rpName, origins }`; null clears it (derived from allowedOrigins). */
  @IsOptional()
  @IsWebAuthnSettings()
  webauthn?: WebAuthnSettings | null;

  /** Overrides of the magic-link and password-reset mails (`{{link}}`, `{{projectName}}`, `{{expiresInMinutes}}`). */
  @IsOptional()
  @IsEmailTemplates()
  emailTemplates?: EmailTemplates | null;

  @IsOptional()
  @IsInt({ message: 'userLimit must be an integer or null.' })
  @Min(0, { message: 'userLimit must not be negative.' })
  userLimit?: number | null;

  @OptionalNotNull()
  @IsInt({ message: 'accessTokenTtlSeconds must be an integer.' })
  @Min(60, { message: 'accessTokenTtlSeconds must be from 60 to 86400.' })
  @Max(86_400, { message: 'accessTokenTtlSeconds must be from 60 to 86400.' })
  accessTokenTtlSeconds?: number;

  @OptionalNotNull()
  @IsInt({ message: 'refreshTokenTtlSeconds must be an integer.' })
  @Min(300, { message: 'refreshTokenTtlSeconds must be from 300 to 31536000.' })
  @Max(31_536_000, { message: 'refreshTokenTtlSeconds must be from 300 to 31536000.' })
  refreshTokenTtlSeconds?: number;

  @OptionalNotNull()
  @IsInt({ message: 'refreshReuseGraceSeconds must be an integer.' })
  @Min(0, { message: 'refreshReuseGraceSeconds must be from 0 to 60.' })
  @Max(60, { message: 'refreshReuseGraceSeconds must be from 0 to 60.' })
  refreshReuseGraceSeconds?: number;

  /** From sign-in, however often refreshed; up to ten years for projects that want no practical limit. */
  @OptionalNotNull()
  @IsInt({ message: 'absoluteSessionLifetimeSeconds must be an integer.' })
  @Min(300, { message: 'absoluteSessionLifetimeSeconds must be from 300 to 315360000.' })
  @Max(315_360_000, { message: 'absoluteSessionLifetimeSeconds must be from 300 to 315360000.' })
  absoluteSessionLifetimeSeconds?: number;

  @OptionalNotNull()
  @IsBoolean({ message: 'rejectCommonPasswords must be true or false.' })
  rejectCommonPasswords?: boolean;
}

// The name is declared in each subclass, not overridden: class-validator would otherwise keep the
// parent's ValidateIf, which skips every check (IsDefined too) when the name is missing.

/** Body of POST /admin/projects (DESIGN §12): a name and optional settings. */
export class CreateProjectDto extends ProjectFieldsDto {
  @IsDefined({ message: 'name is required.' })
  @IsString({ message: 'name must be a string.' })
  @MinLength(1, { message: 'name must not be empty.' })
  @MaxLength(200, { message: 'name must be at most 200 characters.' })
  @NoLineBreaks()
  name!: string;
}

/** Body of PATCH /admin/projects/{id}: any subset of the fields. */
export class UpdateProjectDto extends ProjectFieldsDto {
  @OptionalNotNull()
  @IsString({ message: 'name must be a string.' })
  @MinLength(1, { message: 'name must not be empty.' })
  @MaxLength(200, { message: 'name must be at most 200 characters.' })
  @NoLineBreaks()
  name?: string;
}

/** Only the fields that were sent: the repository leaves undefined ones untouched. */
export function settingsOf(dto: UpdateProjectDto): ProjectSettings {
  return Object.fromEntries(Object.entries(dto).filter(([, value]) => value !== undefined)) as ProjectSettings;
}

/** Body of POST /admin/projects/{id}/api-keys. */
export class CreateApiKeyDto {
  @IsDefined({ message: 'environment is required.' })
  @IsIn(ENVIRONMENTS, { message: `environment must be one of ${ENVIRONMENTS.join(', ')}.` })
  environment!: Environment;
}

/** Query of GET /admin/projects/{id}/environments/{env}/users. */
export class ListUsersQuery {
  @Trim()
  @IsOptional()
  @IsString({ message: 'email must be a single string.' })
  @MaxLength(254, { message: 'email must be at most 254 characters.' })
  @IsEmail({}, { message: 'email must be a valid e-mail address.' })
  email?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer from 1 to 200.' })
  @Min(1, { message: 'limit must be an integer from 1 to 200.' })
  @Max(200, { message: 'limit must be an integer from 1 to 200.' })
  limit?: number;

  /** The `nextCursor` of the previous page (a user id). */
  @IsOptional()
  @IsUUID('all', { message: 'cursor must be a nextCursor value from a previous page.' })
  cursor?: string;
}
