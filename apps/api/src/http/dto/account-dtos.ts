import { IsEmail, IsOptional, MaxLength } from 'class-validator';
import { MAX_EMAIL, MAX_PASSWORD_LENGTH } from '@svc/core';
import { NewPassword, RequiredString } from './account-fields';
import { NoLineBreaks, Trim } from './checks';

// Decorators read top-down as the order of checks: the error names the first one that fails.

/** A TOTP code (6 digits) with some room for spaces. */
const MAX_CODE = 32;

/**
 * The proof a sensitive change may carry when its session's sign-in is not recent (core's
 * requireRecentSignIn): the current password or a TOTP code; both optional.
 */
export class ReauthenticationDto {
  @IsOptional()
  @RequiredString('currentPassword', { min: 1, max: MAX_PASSWORD_LENGTH })
  currentPassword?: string;

  @IsOptional()
  @RequiredString('totpCode', { min: 1, max: MAX_CODE })
  totpCode?: string;
}

/** Body of POST /api/auth/password/change: the new password, proved by the current one. */
export class ChangePasswordDto extends ReauthenticationDto {
  @NewPassword('newPassword')
  newPassword!: string;
}

/** Body of POST /api/auth/email/change: the new address (checked as every account e-mail is). */
export class EmailChangeDto extends ReauthenticationDto {
  @Trim()
  @RequiredString('newEmail', { min: 1, max: MAX_EMAIL })
  @NoLineBreaks()
  @MaxLength(MAX_EMAIL, { message: `newEmail must be at most ${MAX_EMAIL} characters.` })
  @IsEmail({}, { message: 'newEmail must be a valid e-mail address.' })
  newEmail!: string;
}

/** Body of POST /api/auth/email/change/confirm: the link's `token`, or the mail's `code` (with the bearer token). */
export class EmailChangeConfirmDto {
  @IsOptional()
  @RequiredString('token', { min: 1, max: 512 })
  token?: string;

  @IsOptional()
  @RequiredString('code', { min: 1, max: MAX_CODE })
  code?: string;
}
