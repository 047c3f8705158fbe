import type { Server } from 'node:http';

/**
 * Closes a new connection at once when its client address already holds `perClient` open ones.
 *
 * Why: Node's event loop handles up to 48 batches of 1,024 ready sockets per turn and registers a new
 * connection only at the start of the next turn; once more than 1,024 connections are busy at once,
 * a turn lasts seconds and so does every new connection's first answer (docs/performance.md, "Held
 * connections"). One client holding thousands of busy connections could so keep everyone else out.
 */
export function limitConnectionsPerClient(server: Server, perClient: number): void {
  const open = new Map<string, number>();
  // Before Node's own listener: a refused connection never gets an HTTP parser.
  server.prependListener('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > perClient) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
