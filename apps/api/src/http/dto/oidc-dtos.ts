import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsOptional, IsString, MaxLength, MinLength, ValidateBy } from 'class-validator';
import { displayNameProblem, MAX_OIDC_REDIRECT_URIS, type Environment } from '@svc/core';
import { IsEnvironment, OptionalNotNull } from './checks';

// Decorators read top-down as the order of checks: the error names the first one that fails.
// URI rules (https, exact, no fragment) are core's (registerOidcClient), so custom hosts get them too.

const MAX_SCOPES = 20;
const MAX_URIS = MAX_OIDC_REDIRECT_URIS;

/** OidcGrantRequest of the contract (POST /api/auth/oidc/grant). */
export class OidcGrantDto {
  @IsDefined({ message: 'requestToken is required.' })
  @IsString({ message: 'requestToken must be a string.' })
  @MinLength(1, { message: 'requestToken must not be empty.' })
  @MaxLength(512, { message: 'requestToken must be at most 512 characters.' })
  requestToken!: string;

  @IsDefined({ message: 'approved is required.' })
  @IsBoolean({ message: 'approved must be a boolean.' })
  approved!: boolean;

  @IsOptional()
  @IsString({ message: 'userId must be a string.' })
  @MaxLength(200, { message: 'userId must be at most 200 characters.' })
  userId?: string;

  @IsOptional()
  @IsArray({ message: 'scopes must be an array of strings.' })
  @ArrayMaxSize(MAX_SCOPES, { message: `scopes may hold at most ${MAX_SCOPES} entries.` })
  @IsString({ each: true, message: 'scopes must be an array of strings.' })
  @MaxLength(64, { each: true, message: 'each scope must be at most 64 characters.' })
  scopes?: string[];
}

/** Body of POST /admin/projects/{id}/oidc-clients (the OpenAPI document). */
export class CreateOidcClientDto {
  @IsDefined({ message: 'environment is required.' })
  @IsEnvironment()
  environment!: Environment;

  @IsDefined({ message: 'name is required.' })
  @ValidateBy({ name: 'displayName', validator: { validate: (value) => displayNameProblem(value, 'name') === null, defaultMessage: (args) => displayNameProblem(args?.value, 'name') ?? '' } })
  name!: string;

  @IsDefined({ message: 'redirectUris is required.' })
  @IsArray({ message: 'redirectUris must be an array.' })
  @ArrayMaxSize(MAX_URIS, { message: `redirectUris may hold at most ${MAX_URIS} entries.` })
  @IsString({ each: true, message: 'each entry of redirectUris must be a string.' })
  redirectUris!: string[];

  @OptionalNotNull()
  @IsArray({ message: 'postLogoutRedirectUris must be an array.' })
  @ArrayMaxSize(MAX_URIS, { message: `postLogoutRedirectUris may hold at most ${MAX_URIS} entries.` })
  @IsString({ each: true, message: 'each entry of postLogoutRedirectUris must be a string.' })
  postLogoutRedirectUris?: string[];

  @OptionalNotNull()
  @IsBoolean({ message: 'public must be a boolean.' })
  public?: boolean;
}

/** Query of GET /admin/projects/{id}/oidc-clients. */
export class ListOidcClientsQuery {
  @IsOptional()
  @IsEnvironment()
  environment?: Environment;
}
