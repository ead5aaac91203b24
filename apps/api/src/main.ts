import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { buildContainer, type Container } from './container';
import { resolveSecrets } from './dev-secrets';
import { announceFirstStart } from './first-start';
import { createLogger } from './logger';
import { createMetrics } from './metrics';

/** In-flight requests get this long to finish after SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  const secrets = await resolveSecrets(config);
  const metrics = createMetrics({ withDefaults: true });
  const container = await buildContainer(secrets.config, { logger, metrics });
  if (container.outboxStats) metrics.setOutboxDepthSource(container.outboxStats);
  await announceFirstStart(container, secrets, logger);
  const app = createApp({ ...container, logger, config: secrets.config, metrics });
  const server = app.listen(config.port, () => {
    // The bound port (PORT=0 picks a free one); tests and scripts read it from this line.
    const { port } = server.address() as AddressInfo;
    logger.info({ url: config.baseUrl, port, database: config.database.kind, redis: config.redisUrl !== null }, `svc API listening on port ${port} (${config.baseUrl})`);
  });
  // Sends queued mail (magic links, resets); stopped by container.close() on shutdown.
  container.outboxWorker.start();
  // Purges expired rows (first run a minute or two after start); stopped by container.close() too.
  container.janitor.start();
  server.on('error', (error) => {
    logger.fatal({ err: error }, 'server failed');
    void container.close().finally(() => process.exit(1));
  });
  const stop = (signal: string) => shutdown({ server, container, logger, signal });
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Stop accepting, let in-flight requests finish, close storage, exit 0; exit 1 after the hard timeout. */
async function shutdown(parts: { server: Server; container: Container; logger: Logger; signal: string }): Promise<void> {
  const { server, container, logger, signal } = parts;
  logger.info({ signal }, 'shutting down');
  const timer = setTimeout(() => {
    logger.error('shutdown timed out; exiting');
    process.exit(1);
  }, SHUTDOWN_TIMEOUT_MS);
  timer.unref();
  // close() stops listening and waits for in-flight requests; idle keep-alive sockets would hold it open.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  // Stops the outbox worker and the janitor (waiting for their runs in flight), then closes storage.
  await container.close().catch((error) => logger.error({ err: error }, 'closing storage failed'));
  logger.info('stopped');
  process.exit(0);
}

main().catch((error) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`svc failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
