import type { ConsoleSignOutStore } from '@svc/core';
import type { Database } from './database';
import { deleteBounded } from './bounded-delete';
import { assertDate, assertText, isText } from './guards';
import { dateParam } from './row-values';

/** ConsoleSignOutStore on PostgreSQL or SQLite: one row per signed-out session, until its expiry. */
export class TypeormConsoleSignOutStore implements ConsoleSignOutStore {
  constructor(private readonly db: Database) {}

  async add(sessionId: string, expiresAt: Date): Promise<void> {
    assertText(sessionId, 'session id');
    assertDate(expiresAt, 'expiresAt');
    await this.db.query('INSERT INTO console_sign_outs (session_id, expires_at) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING', [sessionId, dateParam(expiresAt)]);
  }

  async has(sessionId: string): Promise<boolean> {
    if (!isText(sessionId)) return false;
    return (await this.db.query('SELECT 1 AS found FROM console_sign_outs WHERE session_id = $1', [sessionId])).length > 0;
  }

  async deleteExpired(now: Date, limit: number): Promise<number> {
    assertDate(now, 'now');
    const spec = { table: 'console_sign_outs', key: 'session_id', where: 'expires_at <= $1', returning: 'session_id' };
    return (await deleteBounded(this.db, spec, [dateParam(now)], limit)).length;
  }
}
