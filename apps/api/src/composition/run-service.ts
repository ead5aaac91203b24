import type { Logger } from 'pino';
import { loadConfig } from './config';
import { announceFirstStart } from './first-start';
import { createLogger } from './logger';
import { createSvcServer, type SvcServer } from './svc-server';

/**
 * `pnpm start` and `svc start`: the service from the environment, on PORT, until SIGTERM or
 * SIGINT. Resolves with the exit code once stopped: 0 when everything in flight finished, 1 when
 * SVC_SHUTDOWN_TIMEOUT_MS ran out first (storage is closed either way).
 */
export async function runService(env: Record<string, string | undefined> = process.env): Promise<number> {
  const config = loadConfig(env);
  const logger = createLogger({ level: config.logLevel });
  const server = await createSvcServer(config, { logger });
  await announceFirstStart(server.container, server.secrets, logger);
  try {
    await server.start({ port: config.port });
  } catch (error) {
    // Nothing listens, but the database (and Redis) are open: close them so the process can exit.
    await server.stop();
    throw error;
  }
  // The listeners stay for the whole drain: a terminal or a supervisor often sends the signal to
  // every process of the group (npm, tsx and this one), so a second SIGTERM arrives while we
  // stop; with no listener left, Node's default action would kill the process mid-drain.
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.on('SIGTERM', () => resolve('SIGTERM'));
    process.on('SIGINT', () => resolve('SIGINT'));
  });
  return shutdown(server, logger, signal);
}

/** After the drain's own timeout, this much more for closing storage before the process gives up on it. */
const CLOSE_GRACE_MS = 5000;

async function shutdown(server: SvcServer, logger: Logger, signal: NodeJS.Signals): Promise<number> {
  logger.info({ signal }, 'shutting down');
  const backstop = setTimeout(() => {
    logger.error('closing storage hung; exiting');
    process.exit(1);
  }, server.config.shutdownTimeoutMs + CLOSE_GRACE_MS);
  backstop.unref();
  const { drained } = await server.stop();
  clearTimeout(backstop);
  if (!drained) {
    logger.error({ timeoutMs: server.config.shutdownTimeoutMs }, 'shutdown timed out with requests in flight; storage closed anyway');
    return 1;
  }
  logger.info('stopped');
  return 0;
}
