import 'reflect-metadata';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsDefined, IsEmail, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import {
  isUuid,
  MAX_EMAIL,
  MAX_PAGE_SIZE,
  MAX_SEARCH_TEXT,
  type EmailVerificationMode,
  type Environment,
  type Plan,
  type ProjectSettings,
  type WebAuthnSettings,
  type EmailTemplates,
  type RateLimitOverrides,
  type RefreshReuseResponse,
} from '@svc/core';
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
  /** The project's own rate limits per environment (`{ sandbox: { signup: { limit: 500 } } }`); null clears them. */
  @Allow() rateLimits?: RateLimitOverrides | null;
  /** Days audit entries are kept (1-3650, default 90). */
  @Allow() auditRetentionDays?: number;
  /** `revoke_all_sessions` (default) or `revoke_session`: what a replayed refresh token ends. */
  @Allow() refreshReuseResponse?: RefreshReuseResponse;
  /** Also mail the user when a replayed refresh token ended sessions (default false). */
  @Allow() refreshReuseNotice?: boolean;
  @Allow() recentSignInSeconds?: number;
  @Allow() emailVerification?: EmailVerificationMode;
  @Allow() emailVerificationUrl?: string | null;
}

/** Body of POST /admin/projects (the OpenAPI document): a name and optional settings. */
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

/** `limit` and `cursor` of every keyset-paged admin list; the cursor is a `nextCursor` (an id). */
class PageQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}.` })
  @Min(1, { message: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}.` })
  @Max(MAX_PAGE_SIZE, { message: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}.` })
  limit?: number;

  @IsOptional()
  @ValidateBy({ name: 'isUuid', validator: { validate: isUuid } }, { message: 'cursor must be a nextCursor value from a previous page.' })
  cursor?: string;
}

/** Search text of a list (`q`); its rules (non-empty, length) are core's `searchTextProblem`. */
class SearchPageQuery extends PageQuery {
  @IsOptional()
  @IsString({ message: 'q must be a single string.' })
  @MaxLength(MAX_SEARCH_TEXT, { message: `q must be at most ${MAX_SEARCH_TEXT} characters.` })
  q?: string;
}

/** Query of GET /admin/projects. */
export class ListProjectsQuery extends SearchPageQuery {}

/** Query of GET /admin/projects/{id}/environments/{env}/users. */
export class ListUsersQuery extends SearchPageQuery {
  @Trim()
  @IsOptional()
  @IsString({ message: 'email must be a single string.' })
  @MaxLength(MAX_EMAIL, { message: `email must be at most ${MAX_EMAIL} characters.` })
  @IsEmail({}, { message: 'email must be a valid e-mail address.' })
  email?: string;
}

/** A list that takes no parameter at all: any is refused by name. */
export class NoQuery {}

/** Body of PATCH /admin/projects/{id}/environments/{env}/users/{userId}; role and meta rules are core's. */
export class UpdateUserDto {
  @Allow() role?: string;
  @Allow() meta?: Record<string, unknown>;

  @IsOptional()
  @IsBoolean({ message: 'emailVerified must be a boolean.' })
  emailVerified?: boolean;
}

/** Body of POST /admin/projects/{id}/environments/{env}/users: an import, with or without a password. */
export class CreateUserDto extends UpdateUserDto {
  @Trim()
  @IsDefined({ message: 'email is required.' })
  @IsString({ message: 'email must be a string.' })
  @MaxLength(MAX_EMAIL, { message: `email must be at most ${MAX_EMAIL} characters.` })
  @IsEmail({}, { message: 'email must be a valid e-mail address.' })
  email!: string;

  @IsOptional()
  @IsString({ message: 'password must be a string.' })
  password?: string;
}

/** Body of POST /console/api/session: the admin token, exchanged for a console session. */
export class ConsoleSignInDto {
  @IsDefined({ message: 'token is required.' })
  @IsString({ message: 'token must be a string.' })
  @MaxLength(1024, { message: 'token must be at most 1024 characters.' })
  token!: string;
}
