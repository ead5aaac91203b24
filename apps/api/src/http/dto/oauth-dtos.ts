import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateBy } from 'class-validator';
import { callerStateProblem, type Environment } from '@svc/core';
import { IsAppUrl, IsEnvironment, OptionalNotNull } from './checks';

// Decorators read top-down as the order of checks: the error names the first one that fails.
// Redirect URLs are only typed and bounded here: core parses them and matches the allow-list.

const MAX_URL = 2048;

/** OAuthInitiateRequest of the contract, plus the caller's own `state` (docs/decisions.md#contract-clarifications). */
export class OAuthInitiateDto {
  @IsOptional()
  @IsString({ message: 'redirectUrl must be a string or null.' })
  @MaxLength(MAX_URL, { message: `redirectUrl must be at most ${MAX_URL} characters.` })
  redirectUrl?: string | null;

  @OptionalNotNull()
  @IsString({ message: 'state must be a string.' })
  @ValidateBy({ name: 'callerState', validator: { validate: (value) => callerStateProblem(String(value)) === null, defaultMessage: (args) => callerStateProblem(String(args?.value)) ?? '' } })
  state?: string;
}

/** OAuthTokenRequest of the contract. Our exchange codes are 43 characters; 512 leaves room. */
export class OAuthTokenDto {
  @IsDefined({ message: 'code is required.' })
  @IsString({ message: 'code must be a string.' })
  @MinLength(1, { message: 'code must not be empty.' })
  @MaxLength(512, { message: 'code must be at most 512 characters.' })
  code!: string;
}

/** The query the identity provider's redirect brings to the callback: single strings, bounded. */
export class OAuthCallbackQuery {
  @IsOptional()
  @IsString({ message: 'code must be a single string.' })
  @MaxLength(MAX_URL, { message: 'code is too long.' })
  code?: string;

  @IsOptional()
  @IsString({ message: 'state must be a single string.' })
  @MaxLength(512, { message: 'state is too long.' })
  state?: string;

  @IsOptional()
  @IsString({ message: 'error must be a single string.' })
  @MaxLength(256, { message: 'error is too long.' })
  error?: string;

  @IsOptional()
  @IsString({ message: 'iss must be a single string.' })
  @MaxLength(MAX_URL, { message: 'iss is too long.' })
  iss?: string;
}

const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/; // RFC 6749 scope-token

/** Body of `PUT /admin/projects/{id}/oauth-providers/{provider}` (the OpenAPI document). */
export class OAuthProviderDto {
  @OptionalNotNull()
  @IsEnvironment()
  environment?: Environment;

  @IsDefined({ message: 'enabled is required.' })
  @IsBoolean({ message: 'enabled must be a boolean.' })
  enabled!: boolean;

  @IsDefined({ message: 'clientId is required.' })
  @IsString({ message: 'clientId must be a string.' })
  @MinLength(1, { message: 'clientId must not be empty.' })
  @MaxLength(512, { message: 'clientId must be at most 512 characters.' })
  clientId!: string;

  @OptionalNotNull()
  @IsString({ message: 'clientSecret must be a string.' })
  @MinLength(1, { message: 'clientSecret must not be empty.' })
  @MaxLength(2048, { message: 'clientSecret must be at most 2048 characters.' })
  clientSecret?: string;

  @OptionalNotNull()
  @IsArray({ message: 'scopes must be an array.' })
  @ArrayMaxSize(50, { message: 'scopes may hold at most 50 entries.' })
  @Matches(SCOPE, { each: true, message: 'each entry of scopes must be an OAuth scope token (no spaces or quotes).' })
  scopes?: string[];

  @IsOptional()
  @IsAppUrl()
  redirectUrl?: string | null;

  @IsOptional()
  @IsAppUrl()
  issuer?: string | null;

  @IsOptional()
  @IsAppUrl()
  authorizationUrl?: string | null;

  @IsOptional()
  @IsAppUrl()
  tokenUrl?: string | null;

  @IsOptional()
  @IsAppUrl()
  userInfoUrl?: string | null;
}

/** `?environment=` of the provider list and delete (default production). */
export class OAuthProviderEnvironmentQuery {
  @IsOptional()
  @IsEnvironment()
  environment?: Environment;
}
