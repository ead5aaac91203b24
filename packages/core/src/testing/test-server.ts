import { describeWhenAvailable } from './describe-when-available';

/**
 * A server that test suites need outside the process (PostgreSQL, Redis), named by an
 * environment variable. The adapters' `/testing` entry points describe theirs with it; core
 * itself opens no connection and starts no process, so the adapter passes in what does.
 */
export interface TestServer {
  /** For messages: "PostgreSQL", "Redis". */
  name: string;
  /** The variable that names it, for the hint: "DATABASE_URL". */
  variable: string;
  /** Where it is: the variable's value, or the default test server. */
  url: string;
  /** One connection attempt, no retries; rejects with the reason when the server is not there. */
  connect(): Promise<void>;
  /**
   * The same check, synchronously, because jest registers `describe` blocks synchronously and
   * cannot wait for a connection: null when reachable, otherwise the reason.
   */
  probeSync(): string | null;
}

/**
 * The server's URL when it answers, else null after a loud warning. With CI=true an unreachable
 * server rejects instead: a green CI run must mean its suites really ran.
 */
export async function reachableServerUrl(server: TestServer, caller: string): Promise<string | null> {
  try {
    await server.connect();
    return server.url;
  } catch (error) {
    const reason = (error as Error).message;
    if (process.env.CI === 'true') throw new Error(`CI=true: ${unreachable(server, reason)}`);
    console.warn(
      `\n!!! ${caller}: ${server.name} suites are SKIPPED. ${unreachable(server, reason)}. ` + `Start ${server.name} or set ${server.variable} to run them; with CI=true this is a failure. !!!\n`,
    );
    return null;
  }
}

/**
 * `describe` for suites that need the server. Reachable: runs `body(url)`. Unreachable: fails
 * with CI=true, otherwise warns loudly and registers the suites with `describe.skip`.
 */
export function describeWithServer(name: string, server: TestServer, body: (url: string) => void): void {
  const reason = server.probeSync();
  const hint = reason && `${reason}; start ${server.name} or set ${server.variable}`;
  describeWhenAvailable(name, `${server.name} at ${redactUrl(server.url, server.variable)}`, hint, () => body(server.url));
}

/** What `spawnSync` of node:child_process answers, as far as a probe reads it. */
export interface ProbeOutcome {
  status: number | null;
  signal?: string | null;
  stderr?: string | null;
  error?: Error;
}

/**
 * The reason a synchronous probe failed, or null when it exited 0. The adapter runs the probe
 * (a short `node -e` script that connects once) with `spawnSync` and hands over the outcome.
 */
export function probeFailure(probe: ProbeOutcome): string | null {
  if (probe.status === 0) return null;
  return probe.stderr?.trim() || probe.error?.message || `probe exited with ${probe.status ?? probe.signal}`;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string, variable = 'URL'): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return `(unparsable ${variable})`;
  }
}

function unreachable(server: TestServer, reason: string): string {
  return `${server.name} at ${redactUrl(server.url, server.variable)} is not reachable (${reason})`;
}
