import { IsDefined, IsEmail, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import type { UserMeta } from '@svc/core';
import { NoLineBreaks, Trim } from './checks';
import { IsPlainJsonObject } from './plain-object';

// Decorators read top-down as the order of checks: the error names the first one that fails.

/** RFC 5321 caps a forward path at 256 octets, i.e. an address at 254. */
const MAX_EMAIL = 254;
/** Long enough for any passphrase; bounds the cost of hashing (every byte counts, DESIGN §4). */
const MAX_PASSWORD = 1024;
/** Meta is application data for the token holder, not a document store. */
export const MAX_META_DEPTH = 5;

/** SignupRequest of the contract. */
export class SignupDto {
  @Trim()
  @IsDefined({ message: 'email is required.' })
  @IsString({ message: 'email must be a string.' })
  @NoLineBreaks()
  @MaxLength(MAX_EMAIL, { message: `email must be at most ${MAX_EMAIL} characters.` })
  @IsEmail({}, { message: 'email must be a valid e-mail address.' })
  email!: string;

  @IsDefined({ message: 'password is required.' })
  @IsString({ message: 'password must be a string.' })
  @MinLength(8, { message: 'password must be at least 8 characters long.' })
  @MaxLength(MAX_PASSWORD, { message: `password must be at most ${MAX_PASSWORD} characters.` })
  password!: string;

  @IsOptional()
  @IsPlainJsonObject({ maxDepth: MAX_META_DEPTH })
  meta?: UserMeta;
}

/** LoginRequest of the contract. */
export class LoginDto {
  @Trim()
  @IsDefined({ message: 'email is required.' })
  @IsString({ message: 'email must be a string.' })
  @NoLineBreaks()
  @MaxLength(MAX_EMAIL, { message: `email must be at most ${MAX_EMAIL} characters.` })
  @IsEmail({}, { message: 'email must be a valid e-mail address.' })
  email!: string;

  @IsDefined({ message: 'password is required.' })
  @IsString({ message: 'password must be a string.' })
  @MinLength(1, { message: 'password must not be empty.' })
  @MaxLength(MAX_PASSWORD, { message: `password must be at most ${MAX_PASSWORD} characters.` })
  password!: string;
}

/** RefreshLogoutRequest of the contract. Our refresh tokens are 43 characters; 512 leaves room. */
export class RefreshLogoutDto {
  @IsDefined({ message: 'refreshToken is required.' })
  @IsString({ message: 'refreshToken must be a string.' })
  @MinLength(1, { message: 'refreshToken must not be empty.' })
  @MaxLength(512, { message: 'refreshToken must be at most 512 characters.' })
  refreshToken!: string;
}
