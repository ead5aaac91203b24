import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * A connection idle this long while stopping is closed. Under load a keep-alive connection's
 * next request follows its last answer within microseconds; it then gets `Connection: close`
 * and ends cleanly, instead of being cut while the client is already sending on it.
 */
const IDLE_GRACE_MS = 250;
const SWEEP_EVERY_MS = 50;

/**
 * Graceful stop for an HTTP server under keep-alive traffic: `stop()` stops accepting, answers
 * every request still to come with `Connection: close` (so each connection ends after its
 * answer), closes connections that stay idle, and lets requests in flight finish. It resolves
 * true once every connection has ended, or false after `timeoutMs` (then it cuts them).
 */
export function drainOnStop(server: Server): { stop(timeoutMs: number): Promise<boolean> } {
  const idleSince = new Map<Socket, number>();
  const open = new Map<Socket, Set<ServerResponse>>();
  let stopping = false;

  server.on('connection', (socket: Socket) => {
    idleSince.set(socket, Date.now());
    open.set(socket, new Set());
    socket.once('close', () => {
      idleSince.delete(socket);
      open.delete(socket);
    });
  });
  // Before the app's own listener, so the header is set before any answer starts.
  server.prependListener('request', (req, res) => {
    const socket = req.socket;
    const answers = open.get(socket);
    idleSince.delete(socket);
    answers?.add(res);
    if (stopping) res.setHeader('Connection', 'close');
    res.once('close', () => {
      answers?.delete(res);
      if (answers?.size === 0 && !socket.destroyed) idleSince.set(socket, Date.now());
    });
  });

  const sweep = () => {
    const now = Date.now();
    for (const [socket, since] of idleSince) if (now - since >= IDLE_GRACE_MS) socket.destroy();
  };

  return {
    stop(timeoutMs) {
      stopping = true;
      return new Promise((resolve) => {
        const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
        const deadline = setTimeout(() => {
          clearInterval(sweeper);
          server.closeAllConnections();
          resolve(false);
        }, timeoutMs);
        // net's close, not http's: since Node 19 http's also cuts every idle connection at once,
        // including those whose client is sending its next request at this very moment.
        NetServer.prototype.close.call(server, () => {
          clearInterval(sweeper);
          clearTimeout(deadline);
          resolve(true);
        });
        // Answers not yet started close their connection when they end.
        for (const answers of open.values()) for (const res of answers) if (!res.headersSent) res.setHeader('Connection', 'close');
      });
    },
  };
}
