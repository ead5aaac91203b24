import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { InFlight } from '../http/in-flight';

/** A Node or Express request handler; `next` is there when mounted in another app. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/**
 * A connection that was idle when the stop began, or went idle after it, may be about to carry
 * one more request: a client that just sent it would see the connection reset instead of an
 * answer. It gets this long to send one (answered with `Connection: close`) before it is closed.
 */
const IDLE_GRACE_MS = 1000;

/**
 * The requests in flight through one handler, and the three phases of a stop: serving; stopping
 * (requests still arriving on open connections are served, with `Connection: close`, so clients
 * stop reusing the connection; `stopping()` lets /readyz fail); stopped (anything still arriving
 * is refused without touching storage).
 */
export class Drain {
  private phase: 'serving' | 'stopping' | 'stopped' = 'serving';
  private readonly inFlight = new InFlight<ServerResponse>();
  private waiters: Array<() => void> = [];

  get stopping(): boolean {
    return this.phase !== 'serving';
  }

  /** `handler`, counted; after `end()`, requests go to `refuse` instead. */
  wrap(handler: RequestListener, refuse: RequestListener): RequestListener {
    return (req, res, next) => {
      if (this.phase === 'stopped') return refuse(req, res, next);
      if (this.phase === 'stopping') res.setHeader('Connection', 'close');
      const entry = this.inFlight.add(res);
      // 'close' follows 'finish' (a tick later) and also comes alone when the connection drops.
      res.once('close', () => {
        if (this.inFlight.delete(entry) && this.inFlight.size === 0) this.notify();
      });
      handler(req, res, next);
    };
  }

  /** Starts the stop: answers not yet begun ask their clients to close the connection. */
  begin(): void {
    if (this.phase !== 'serving') return;
    this.phase = 'stopping';
    for (const res of this.inFlight.values()) if (!res.headersSent) res.setHeader('Connection', 'close');
  }

  /** Resolves true once no request is in flight, or false after `timeoutMs` with some still running. */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.inFlight.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** From now on every request is refused. */
  end(): void {
    this.phase = 'stopped';
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * Tracks the connections of `server` so that a stop can close each keep-alive connection once it
 * has nothing in flight, without cutting one that a client is sending on at that moment.
 */
export class ConnectionDrain {
  private readonly busy = new Map<Socket, number>();
  private stopping = false;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.busy.set(socket, 0);
      socket.once('close', () => this.busy.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      this.busy.set(socket, (this.busy.get(socket) ?? 0) + 1);
      res.once('close', () => {
        const left = (this.busy.get(socket) ?? 1) - 1;
        this.busy.set(socket, left);
        if (this.stopping && left === 0) this.closeWhenIdle(socket);
      });
    });
  }

  /**
   * Stops accepting connections and closes open ones as they fall idle; resolves once none is
   * left, or after `timeoutMs` by closing the rest.
   */
  async close(timeoutMs: number): Promise<void> {
    this.stopping = true;
    // net.Server's close: stop listening, nothing else. http.Server's own close would also drop
    // every idle keep-alive connection at once, racing clients about to send on them.
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(this.server, () => resolve()));
    for (const [socket, count] of this.busy) if (count === 0) this.closeWhenIdle(socket);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.server.closeAllConnections();
        resolve();
      }, timeoutMs);
    });
    await Promise.race([closed, late]);
    clearTimeout(timer);
    // Clears http.Server's own timers; the port is already closed, so its error is expected.
    this.server.close(() => undefined);
  }

  private closeWhenIdle(socket: Socket): void {
    setTimeout(() => {
      if ((this.busy.get(socket) ?? 0) === 0) socket.destroySoon();
    }, IDLE_GRACE_MS).unref();
  }
}
