import { IsOptional } from 'class-validator';
import { MAX_PASSWORD_LENGTH } from '@svc/core';
import { NewPassword, RequiredString } from './account-fields';

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
