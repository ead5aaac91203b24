import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { createApp } from '../http/app';
import { configFromObject, type SvcServerConfig } from './config-object';
import { buildContainer, type Container } from './container';
import { resolveSecrets, type ResolvedSecrets, type RuntimeConfig } from './dev-secrets';
import { StartupError } from './config';
import { ConnectionDrain, Drain, type RequestListener } from './drain';
import { errorBody, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/http-errors';
import { createLogger } from './logger';
import { createMetrics, type Metrics } from '../http/metrics';
import { startRestCollector, type RestCollector } from './rest-collector';

export interface SvcServerOptions {
  /** Where the service logs; default a pino logger at `logLevel` on stdout. */
  logger?: Logger;
  /** Prometheus metrics (GET /metrics); default a registry of its own with the process metrics. */
  metrics?: Metrics;
}

export interface StartOptions {
  /** Listen on this port (0: a free one). Without it nothing listens: mount `handler` in your app. */
  port?: number;
  /** The address to listen on (default: the config's `host`, SVC_HOST; else every address, as Node's `listen`). */
  host?: string;
}

/** The whole service, built and not yet running; see {@link createSvcServer}. */
export interface SvcServer {
  /**
   * The HTTP API as a request handler: `app.use('/auth', svc.handler)` in an Express app, or
   * `http.createServer(svc.handler)`. Every route, the admin API and the OIDC issuers. Mounted
   * under a path, `baseUrl` must include that path (it is the tokens' issuer and the base of
   * every URL the service hands out).
   */
  handler: RequestListener;
  /** The Express app behind `handler`, for inspection; serve `handler`, which counts requests for `stop()`. */
  app: Express;
  /** The validated configuration, secrets filled in (generated into `dataDir` outside production when unset). */
  config: RuntimeConfig;
  /** Which secrets came from files or were generated just now (first start). */
  secrets: ResolvedSecrets;
  /** The adapters and use cases (the CLI's commands and tests use them). */
  container: Container;
  /**
   * Starts the outbox worker (queued mail) and the janitor (expired rows) and, given a `port`,
   * listens on it. Resolves with the address listened on, or nulls when only mounted.
   */
  start(options?: StartOptions): Promise<{ url: string | null; port: number | null }>;
  /**
   * Stops as a well-behaved server does: /readyz answers 503, requests still arriving are served
   * with `Connection: close`, the port (if it listens) stops accepting and keep-alive connections
   * close as they fall idle; requests in flight finish; then the workers stop and storage and
   * Redis close. Waits at most `shutdownTimeoutMs`, then closes anyway: `drained` says whether
   * everything finished in time. Later requests are answered 503.
   */
  stop(): Promise<{ drained: boolean }>;
}

/**
 * Builds the service from a config object with the fields of the environment variables (see
 * {@link SvcServerConfig}; unset fields take the variables' defaults, `process.env` is not read),
 * opening the database (and migrating it unless `migrateOnStart: false`). Invalid fields are
 * reported together as a ConfigError, as `loadConfig` does. Nothing runs until `start()`.
 */
export async function createSvcServer(input: SvcServerConfig = {}, options: SvcServerOptions = {}): Promise<SvcServer> {
  const secrets = await resolveSecrets(configFromObject(input));
  const config = secrets.config;
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const metrics = options.metrics ?? createMetrics({ withDefaults: true });
  const container = await buildContainer(config, { logger, metrics });
  if (container.outboxStats) metrics.setOutboxDepthSource(container.outboxStats);
  metrics.setWebhookQueueSource(container.webhookStats);
  const drain = new Drain();
  const app = createApp({ ...container, logger, config, metrics, stopping: () => drain.stopping });
  const handler = drain.wrap(app as unknown as RequestListener, refuseStopped);
  let listening: { server: Server; connections: ConnectionDrain; collector: RestCollector | null } | null = null;
  let workers = false;
  let stopped: Promise<{ drained: boolean }> | null = null;

  const start = async (startOptions: StartOptions = {}) => {
    if (stopped) throw new Error('This svc server has been stopped; create a new one.');
    if (!workers) {
      workers = true;
      container.outboxWorker.start();
      container.webhookWorker.start();
      container.janitor.start();
      container.rateLimitedFlusher.start();
    }
    if (startOptions.port === undefined) return { url: null, port: null };
    if (listening) throw new Error('This svc server is already listening.');
    const server = createServer();
    // Connections are tracked from the first request on, before the handler sees it.
    listening = { server, connections: new ConnectionDrain(server), collector: null };
    server.on('request', handler);
    const where = { port: startOptions.port, host: startOptions.host ?? config.host ?? undefined };
    const port = await listen(server, where);
    // A server on its own port owns its process's memory; a mounted handler leaves it to the app.
    if (config.releaseMemoryAtRest) listening.collector = startRestCollector({ logger });
    server.on('error', (error) => logger.fatal({ err: error }, 'server failed'));
    // The bound port (0 picks a free one); tests and scripts read it from this line.
    logger.info(
      { url: config.baseUrl, port, host: where.host ?? null, database: config.database.kind, redis: config.redisUrl !== null, changes: container.changeFeedKind },
      `svc API listening on port ${port} (${config.baseUrl})`,
    );
    return { url: `http://${urlHost(where.host)}:${port}`, port };
  };

  const stop = () => {
    stopped ??= (async () => {
      const started = Date.now();
      listening?.collector?.stop();
      drain.begin();
      const left = () => Math.max(0, config.shutdownTimeoutMs - (Date.now() - started));
      const connectionsClosed = listening?.connections.close(config.shutdownTimeoutMs);
      const drained = await drain.settled(left());
      await connectionsClosed;
      drain.end();
      // Waits for answered requests' work and stops the workers and the janitor, all within what
      // is left of the budget (at least WORKERS_STOP_MIN_MS): past it the sends and deliveries in
      // flight are cut (and retried), work still running is logged as not done. Then closes storage.
      await container.close({ workersMs: Math.max(left(), WORKERS_STOP_MIN_MS) }).catch((error: unknown) => logger.error({ err: error }, 'closing storage failed'));
      return { drained };
    })();
    return stopped;
  };

  return { handler, app, config, secrets, container, start, stop };
}

/**
 * What answered requests' work and the workers' sends and deliveries in flight get when the drain
 * used up the budget: enough for a database, a mail server or a receiver that answers
 * (milliseconds), within run-service.ts's grace for closing storage.
 */
const WORKERS_STOP_MIN_MS = 1000;

/** After stop(): no storage to answer with. */
const refuseStopped: RequestListener = (_req, res) => {
  const body = JSON.stringify(errorBody('service_unavailable', 'The service has stopped.'));
  res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS), Connection: 'close' });
  res.end(body);
};

function listen(server: Server, options: StartOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options)));
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** What went wrong with the address, in the operator's words (SVC_HOST, PORT); other errors as they are. */
function listenError(error: NodeJS.ErrnoException, options: StartOptions): Error {
  const where = `port ${options.port}${options.host ? ` on ${options.host}` : ''}`;
  if (error.code === 'EADDRINUSE') return new StartupError(`${where} is already in use: stop what listens there, or set PORT to a free port.`);
  if (error.code === 'EACCES') return new StartupError(`${where} needs privileges this process lacks: set PORT to a port above 1023.`);
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return new StartupError(`SVC_HOST ${options.host} is not an address of this machine (${error.code}).`);
  }
  return error;
}

function urlHost(host: string | undefined): string {
  if (host === undefined || host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
