import type { Server } from 'node:http';
import { loadProxyConfig, ProxyConfigError } from './config';
import { startProxyServer } from './server';

/** In-flight requests get this long after SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

// `pnpm start:proxy`: the standalone session proxy (DESIGN §10), configured by environment.
async function main(): Promise<void> {
  const config = loadProxyConfig();
  const log = (line: string) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: line })}\n`);
  // Never the error object itself: an SDK error carries only code and status, but a cause might not.
  const onError = (error: unknown) => log(`upstream problem: ${(error as { code?: string }).code ?? (error as Error).name}: ${(error as Error).message}`);
  const { server, url } = await startProxyServer(config, onError);
  log(`svc session proxy listening on ${url} (API ${config.proxy.baseUrl}, routes under ${config.proxy.routeBasePath ?? '/api/session'}${config.staticDir ? `, serving ${config.staticDir}` : ''})`);
  const stop = (signal: string) => shutdown(server, signal, log);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Stop accepting, let in-flight requests finish, exit 0; exit 1 after the hard timeout. */
function shutdown(server: Server, signal: string, log: (line: string) => void): void {
  log(`${signal}: shutting down`);
  setTimeout(() => process.exit(1), SHUTDOWN_TIMEOUT_MS).unref();
  server.close(() => {
    log('stopped');
    process.exit(0);
  });
  server.closeIdleConnections();
}

main().catch((error) => {
  if (error instanceof ProxyConfigError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`svc proxy failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
