import { IsOptional } from 'class-validator';
import type { UserMeta } from '@svc/core';
import { AccountEmail, MAX_PASSWORD, NewPassword, RequiredString } from './account-fields';
import { IsPlainJsonObject } from './plain-object';

// Decorators read top-down as the order of checks: the error names the first one that fails.

/** Meta is application data for the token holder, not a document store. */
export const MAX_META_DEPTH = 5;

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

  @RequiredString('password', { min: 1, max: MAX_PASSWORD })
  password!: string;
}

/** RefreshLogoutRequest of the contract. Our refresh tokens are 43 characters; 512 leaves room. */
export class RefreshLogoutDto {
  @RequiredString('refreshToken', { min: 1, max: 512 })
  refreshToken!: string;
}
