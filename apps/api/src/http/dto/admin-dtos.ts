import 'reflect-metadata';
import { Type } from 'class-transformer';
import { Allow, IsDefined, IsEmail, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import { isUuid, MAX_EMAIL, type EmailVerificationMode, type Environment, type Plan, type ProjectSettings, type WebAuthnSettings, type EmailTemplates } from '@svc/core';
import { IsEnvironment, Trim } from './checks';

/**
 * The settings a project body may set, shared by create and update. The edge only keeps these
 * fields: every rule of their values (types, bounds, URLs, origins, templates, relying party) is
 * core's `projectSettingsProblem`, which createProject and updateProject apply for any host.
 * Fields that may be cleared take null.
 */
class ProjectFieldsDto {
  @Allow() plan?: Plan;
  @Allow() allowedOrigins?: string[];
  @Allow() defaultMeta?: Record<string, unknown>;
  @Allow() redirectUrls?: string[];
  @Allow() magicLinkUrl?: string | null;
  @Allow() passwordResetUrl?: string | null;
  @Allow() oidcLoginUrl?: string | null;
  /** Passkey relying party `{ rpId, rpName, origins }`; null clears it (derived from allowedOrigins). */
  @Allow() webauthn?: WebAuthnSettings | null;
  /** Overrides of the magic-link and password-reset mails (`{{link}}`, `{{projectName}}`, `{{expiresInMinutes}}`). */
  @Allow() emailTemplates?: EmailTemplates | null;
  @Allow() userLimit?: number | null;
  @Allow() accessTokenTtlSeconds?: number;
  @Allow() refreshTokenTtlSeconds?: number;
  @Allow() refreshReuseGraceSeconds?: number;
  @Allow() absoluteSessionLifetimeSeconds?: number;
  @Allow() rejectCommonPasswords?: boolean;
  @Allow() recentSignInSeconds?: number;
  @Allow() emailVerification?: EmailVerificationMode;
  @Allow() emailVerificationUrl?: string | null;
}

/** Body of POST /admin/projects (DESIGN §12): a name and optional settings. */
export class CreateProjectDto extends ProjectFieldsDto {
  @Allow() name!: string;
}

/** Body of PATCH /admin/projects/{id}: any subset of the fields. */
export class UpdateProjectDto extends ProjectFieldsDto {
  @Allow() name?: string;
}

/** Only the fields that were sent: the repository leaves undefined ones untouched. */
export function settingsOf(dto: UpdateProjectDto): ProjectSettings {
  return Object.fromEntries(Object.entries(dto).filter(([, value]) => value !== undefined)) as ProjectSettings;
}

/** Body of POST /admin/projects/{id}/api-keys. */
export class CreateApiKeyDto {
  @IsDefined({ message: 'environment is required.' })
  @IsEnvironment()
  environment!: Environment;
}

/** Query of GET /admin/projects/{id}/environments/{env}/users. */
export class ListUsersQuery {
  @Trim()
  @IsOptional()
  @IsString({ message: 'email must be a single string.' })
  @MaxLength(MAX_EMAIL, { message: `email must be at most ${MAX_EMAIL} characters.` })
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
  @ValidateBy({ name: 'isUuid', validator: { validate: isUuid } }, { message: 'cursor must be a nextCursor value from a previous page.' })
  cursor?: string;
}
