import type { EntitySchema } from 'typeorm';
import type { StorageKind } from '../database';
import { apiKeyEntity } from './api-key-entity';
import { columnTypes } from './column-types';
import { projectEntity } from './project-entity';
import { refreshTokenEntity } from './refresh-token-entity';
import { sessionEntity } from './session-entity';
import { signingKeyEntity } from './signing-key-entity';
import { userEntity } from './user-entity';
import { mailOutboxEntity } from './mail-outbox-entity';
import { oneTimeTokenEntity } from './one-time-token-entity';

export type { ApiKeyRow } from './api-key-entity';
export type { ProjectRow } from './project-entity';
export type { RefreshTokenRow } from './refresh-token-entity';
export type { SessionRow } from './session-entity';
export type { SigningKeyRow } from './signing-key-entity';
export type { UserRow } from './user-entity';
export type { MailOutboxRow } from './mail-outbox-entity';
export type { OneTimeTokenRow } from './one-time-token-entity';

/**
 * The entity schemas for one database. They describe the tables the migrations create (for
 * tooling and for anyone who wants TypeORM repositories); the schema itself only ever comes from
 * the migrations, never from `synchronize`.
 */
export function entitiesFor(kind: StorageKind): EntitySchema<any>[] {
  const types = columnTypes(kind);
  return [
    projectEntity(types),
    apiKeyEntity(types),
    userEntity(types),
    sessionEntity(types),
    refreshTokenEntity(types),
    signingKeyEntity(types),
    oneTimeTokenEntity(types),
    mailOutboxEntity(types),
  ];
}
