import type { ColumnType } from 'typeorm';
import type { StorageKind } from '../database';

/** Column types per database; they mirror the hand-written migration exactly. */
export interface ColumnTypes {
  id: ColumnType;
  text: ColumnType;
  timestamp: ColumnType;
  json: ColumnType;
  boolean: ColumnType;
  integer: ColumnType;
}

/**
 * PostgreSQL gets native types (uuid, timestamptz, jsonb). SQLite keeps ids and timestamps as
 * text (ISO-8601 with milliseconds, so Dates round-trip exactly) and JSON as text.
 */
export function columnTypes(kind: StorageKind): ColumnTypes {
  return kind === 'postgres'
    ? { id: 'uuid', text: 'text', timestamp: 'timestamptz', json: 'jsonb', boolean: 'boolean', integer: 'integer' }
    : { id: 'text', text: 'text', timestamp: 'text', json: 'text', boolean: 'boolean', integer: 'integer' };
}
