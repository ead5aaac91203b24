import { IsDefined, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { MAX_PASSKEY_NAME } from '@svc/core';
import { AccountEmail } from './account-fields';
import { NoLineBreaks } from './checks';
import { IsPlainJsonObject } from './plain-object';

// Decorators read top-down as the order of checks: the error names the first one that fails.

/** Our bearer secrets are 43 characters; 512 leaves room without inviting huge values. */
const MAX_TOKEN = 512;
/** A TOTP code (6 digits) or a recovery code (`xxxxx-xxxxx`), with some room for spaces. */
const MAX_CODE = 32;
/** WebAuthn JSON is shallow: response -> response -> fields, plus extension results. */
const MAX_RESPONSE_DEPTH = 5;

/** Body of POST /api/auth/2fa/totp/confirm and /disable. */
export class TotpCodeDto {
  @IsDefined({ message: 'code is required.' })
  @IsString({ message: 'code must be a string.' })
  @MinLength(1, { message: 'code must not be empty.' })
  @MaxLength(MAX_CODE, { message: `code must be at most ${MAX_CODE} characters.` })
  code!: string;
}

/** Body of POST /api/auth/2fa/totp/verify: the login challenge and a TOTP or recovery code. */
export class TotpVerifyDto extends TotpCodeDto {
  @IsDefined({ message: 'twoFactorToken is required.' })
  @IsString({ message: 'twoFactorToken must be a string.' })
  @MinLength(1, { message: 'twoFactorToken must not be empty.' })
  @MaxLength(MAX_TOKEN, { message: `twoFactorToken must be at most ${MAX_TOKEN} characters.` })
  twoFactorToken!: string;
}

/** Body of POST /api/auth/passkeys/register/verify: the browser's attestation JSON and a label. */
export class PasskeyRegisterDto {
  @IsDefined({ message: 'response is required.' })
  @IsPlainJsonObject({ maxDepth: MAX_RESPONSE_DEPTH })
  response!: Record<string, unknown>;

  @IsOptional()
  @IsString({ message: 'name must be a string.' })
  @MaxLength(MAX_PASSKEY_NAME, { message: `name must be at most ${MAX_PASSKEY_NAME} characters.` })
  @NoLineBreaks()
  name?: string;
}

/** Body of POST /api/auth/passkeys/login/options. */
export class PasskeyLoginOptionsDto {
  @AccountEmail()
  email!: string;
}

/** Body of POST /api/auth/passkeys/login/verify. */
export class PasskeyLoginVerifyDto extends PasskeyLoginOptionsDto {
  @IsDefined({ message: 'challengeId is required.' })
  @IsString({ message: 'challengeId must be a string.' })
  @MinLength(1, { message: 'challengeId must not be empty.' })
  @MaxLength(MAX_TOKEN, { message: `challengeId must be at most ${MAX_TOKEN} characters.` })
  challengeId!: string;

  @IsDefined({ message: 'response is required.' })
  @IsPlainJsonObject({ maxDepth: MAX_RESPONSE_DEPTH })
  response!: Record<string, unknown>;
}
