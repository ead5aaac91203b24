import { randomUUID } from 'node:crypto';
import { LocalChangeFeed, parseChangeNotice, type ChangeFeed, type ChangeListener, type ChangeNotice } from '@svc/core';
import type { Client } from 'pg';
import { dedicatedClient, type PoolSettings } from './connection-options';
import type { Database } from './database';

/** The channel every instance listens on; notices name their schema, so deployments sharing a database ignore each other's. */
export const CHANGE_CHANNEL = 'svc_changes';
/** Reconnect backoff of the listening connection: from this, doubling, up to the cap. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;

export interface PostgresChangeFeedOptions {
  /** Where notices are sent from: the storage's serving pool (NOTIFY needs no session of its own). */
  database: Database;
  /** The database (and schema) to listen on: the storage's own connection settings. */
  connection: PoolSettings;
  /** Told when a notice cannot be sent or the listening connection is lost (then it reconnects). */
  onError?: (error: unknown, what: 'publish' | 'listen') => void;
  /** Told each time the listening connection is back after a loss (every cache has been dropped). */
  onReconnect?: () => void;
}

/**
 * Change notices through PostgreSQL's LISTEN/NOTIFY: one dedicated listening connection per
 * instance, notices sent through the serving pool (`pg_notify`, delivered to every listener as
 * soon as it commits, in practice within milliseconds). When the listening connection is lost it
 * reconnects with backoff; as notices sent meanwhile are lost, reconnecting delivers `everything`
 * to this process's listeners, so every cache starts over.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private readonly local = new LocalChangeFeed();
  /** Tells this instance's own notices apart when they come back through the channel. */
  private readonly origin = randomUUID();
  private readonly schema: string;
  private client: Client | null = null;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private delayMs = RECONNECT_FIRST_MS;
  private pid: number | null = null;

  private constructor(private readonly options: PostgresChangeFeedOptions) {
    this.schema = options.connection.schema ?? '';
  }

  /** Opens the listening connection; resolves once it listens (a failure is reported and retried in the background). */
  static async open(options: PostgresChangeFeedOptions): Promise<PostgresChangeFeed> {
    const feed = new PostgresChangeFeed(options);
    await feed.listen(false);
    return feed;
  }

  async publish(notice: ChangeNotice): Promise<void> {
    this.local.deliver(notice);
    const payload = JSON.stringify({ ...notice, origin: this.origin, schema: this.schema });
    try {
      await this.options.database.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, payload]);
    } catch (error) {
      this.options.onError?.(error, 'publish');
    }
  }

  subscribe(listener: ChangeListener): () => void {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
    await this.local.close();
  }

  /** True while the listening connection is up. */
  get listening(): boolean {
    return this.client !== null;
  }

  /** The server process of the listening connection (pg_stat_activity's pid), null while down. */
  get listenerPid(): number | null {
    return this.client ? this.pid : null;
  }

  private async listen(afterLoss: boolean): Promise<void> {
    if (this.closed) return;
    const client = dedicatedClient(this.options.connection);
    let lost = false;
    const onLoss = (error: unknown) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.options.onError?.(error, 'listen');
      this.scheduleRetry();
    };
    client.on('error', onLoss);
    client.on('end', () => onLoss(new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (message.channel === CHANGE_CHANNEL && message.payload) this.receive(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      this.pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    } catch (error) {
      onLoss(error);
      return;
    }
    if (lost) return;
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.delayMs = RECONNECT_FIRST_MS;
    if (afterLoss) {
      // Notices sent while nobody listened are gone: every cache starts over.
      this.local.deliver({ kind: 'everything' });
      this.options.onReconnect?.();
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, RECONNECT_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.listen(true);
    }, delay);
    this.retryTimer.unref();
  }

  private receive(payload: string): void {
    let value: { origin?: unknown; schema?: unknown };
    try {
      value = JSON.parse(payload) as typeof value;
    } catch {
      return;
    }
    // Our own notices were delivered when published; another schema's are another deployment's.
    if (value.origin === this.origin || value.schema !== this.schema) return;
    const notice = parseChangeNotice(value);
    if (notice) this.local.deliver(notice);
  }
}
