import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP relay on loopback in front of a real server, which a test can take down (the port then
 * refuses connections, as when the server dies), freeze (connections stay open but nothing is
 * answered, as when the server hangs; bytes wait, as in a paused process) and bring back on the
 * same port. The data behind it
 * survives, so a test can tell counts kept in Redis from counts kept locally. Needs no
 * `redis-server` binary, so it also works against a Redis in another container.
 */
export class OutageProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private frozen = false;
  private listenPort = 0;

  private constructor(private readonly target: { host: string; port: number }) {}

  /** Starts relaying to `targetUrl`'s host and port on a free loopback port. */
  static async start(targetUrl: string): Promise<OutageProxy> {
    const target = new URL(targetUrl);
    const proxy = new OutageProxy({ host: target.hostname, port: Number(target.port || 6379) });
    await proxy.up();
    return proxy;
  }

  /** `targetUrl` (credentials, database) with its host and port replaced by the proxy's. */
  url(targetUrl: string): string {
    const url = new URL(targetUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.listenPort);
    return url.toString();
  }

  /** Accepts connections again, on the same port as before. */
  async up(): Promise<void> {
    this.frozen = false;
    for (const socket of this.sockets) socket.resume();
    if (this.server) return;
    const server = createServer((client) => this.relay(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort, '127.0.0.1', () => resolve());
    });
    this.listenPort = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Closes the port and drops every open connection. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keeps connections open but relays nothing until `up()`, which delivers what waited. */
  freeze(): void {
    this.frozen = true;
    for (const socket of this.sockets) socket.pause();
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      // Paused, not dropped: dropping bytes would desynchronise the protocol, which no real
      // outage does.
      if (this.frozen) from.pause();
      from.on('data', (chunk) => to.write(chunk));
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
    }
  }
}
