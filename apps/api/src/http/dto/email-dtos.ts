import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsEmail, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_EMAIL } from '@svc/core';
import { AccountEmail, NewPassword, RequiredString } from './account-fields';
import { Trim } from './checks';

// Decorators read top-down as the order of checks: the error names the first one that fails.

/** Our link tokens are 51 characters; the bound only keeps garbage cheap. */
const MAX_TOKEN = 512;

/** MagicLinkRequest of the contract (POST /api/auth/magic-link). */
export class MagicLinkDto {
  @AccountEmail()
  email!: string;

  @IsOptional()
  @IsBoolean({ message: 'createIfNotExists must be a boolean.' })
  createIfNotExists?: boolean;
}

/** PasswordResetRequest of the contract (POST /api/auth/password/reset). */
export class PasswordResetDto {
  @AccountEmail()
  email!: string;
}

/** PasswordUpdateRequest of the contract (POST /api/auth/password/update). */
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

/** Body of POST /api/auth/magic-link/verify-code: the address and the mail's 6-digit code. */
export class MagicLinkCodeDto {
  @AccountEmail()
  email!: string;

  @RequiredString('code', { min: 1, max: 32 })
  code!: string;
}

/**
 * Body of POST /api/auth/email/verify: the link's `token`, or the address with the mail's
 * `code`. Each part is optional here; the route accepts exactly one of the two forms.
 */
export class EmailVerifyDto {
  @IsOptional()
  @RequiredString('token', { min: 1, max: MAX_TOKEN })
  token?: string;

  @IsOptional()
  @AccountEmail()
  email?: string;

  @IsOptional()
  @RequiredString('code', { min: 1, max: 32 })
  code?: string;
}

/** Body of POST /api/auth/email/verify/resend. */
export class EmailResendDto {
  @AccountEmail()
  email!: string;
}
