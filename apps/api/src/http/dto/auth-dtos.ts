import { IsOptional } from 'class-validator';
import { MAX_META_DEPTH, MAX_PASSWORD_LENGTH, type UserMeta } from '@svc/core';
import { AccountEmail, NewPassword, RequiredString } from './account-fields';
import { IsPlainJsonObject } from './plain-object';

// Decorators read top-down as the order of checks: the error names the first one that fails.

/** SignupRequest of the contract. */
export class SignupDto {
  @AccountEmail()
  email!: string;

  @NewPassword()
  password!: string;

  @IsOptional()
  @IsPlainJsonObject({ maxDepth: MAX_META_DEPTH })
  meta?: UserMeta;
}

/** LoginRequest of the contract. */
export class LoginDto {
  @AccountEmail()
  email!: string;

  @RequiredString('password', { min: 1, max: MAX_PASSWORD_LENGTH })
  password!: string;
}

/** RefreshLogoutRequest of the contract. Our refresh tokens are 43 characters, 56 when they carry their issue time; 512 leaves room. */
export class RefreshLogoutDto {
  @RequiredString('refreshToken', { min: 1, max: 512 })
  refreshToken!: string;
}
