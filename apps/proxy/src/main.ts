import { loadProxyConfig, ProxyConfigError } from './config';
import { ListenError, startProxyServer, type RunningProxyServer } from './server';

/** In-flight requests get this long after SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

// `pnpm start:proxy`: the standalone session proxy, configured by environment (docs/operating.md).
async function main(): Promise<void> {
  const config = loadProxyConfig();
  const log = (line: string) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: line })}\n`);
  // Never the error object itself: an SDK error carries only code and status, but a cause might not.
  const onError = (error: unknown) => log(`upstream problem: ${(error as { code?: string }).code ?? (error as Error).name}: ${(error as Error).message}`);
  const running = await startProxyServer(config, onError);
  const { url } = running;
  log(`svc session proxy listening on ${url} (API ${config.proxy.baseUrl}, routes under ${config.proxy.routeBasePath ?? '/api/session'}${config.staticDir ? `, serving ${config.staticDir}` : ''})`);
  const stop = (signal: string) => void shutdown(running, signal, log);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Drain (stop accepting, close keep-alive connections, let in-flight requests finish), exit 0; exit 1 after the timeout. */
async function shutdown(running: RunningProxyServer, signal: string, log: (line: string) => void): Promise<void> {
  log(`${signal}: shutting down`);
  const drained = await running.stop(SHUTDOWN_TIMEOUT_MS);
  log(drained ? 'stopped' : `requests still in flight after ${SHUTDOWN_TIMEOUT_MS / 1000} s; stopped anyway`);
  process.exit(drained ? 0 : 1);
}

main().catch((error) => {
  if (error instanceof ProxyConfigError) process.stderr.write(`${error.message}\n`);
  else if (error instanceof ListenError) process.stderr.write(`svc proxy cannot listen: ${error.message}\n`);
  else process.stderr.write(`svc proxy failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
