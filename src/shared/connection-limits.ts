import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Closes the connections being held (the server is closing: they would keep it open). */
  releaseHeld(): void;
  /** How many connections are being held now (tests). */
  readonly held: number;
}

/**
 * A client address holds at most `perClient` open connections. A connection past that is **held**:
 * accepted, never given an HTTP parser, never read from, and closed after `holdMs`. Past `maxHeld`
 * held connections in all, the next one is closed at once.
 *
 * Why a limit: Node's event loop handles up to 48 batches of 1,024 ready sockets per turn and
 * registers a new connection only at the start of the next turn; once more than 1,024 connections are
 * busy at once, a turn lasts seconds and so does every new connection's first answer
 * (docs/performance.md, "Held connections"). One client holding thousands of busy connections could so
 * keep everyone else out.
 *
 * Why held and not closed: a client that opens connections again as soon as they close (a load tool,
 * a broken retry loop) was refused as fast as the server could accept, and the accepting and closing
 * took the event loop instead (issue 28: with 2,000 connections busy with history pages from one
 * address, another client's new connection waited over 5 s). A held connection costs a file descriptor
 * and nothing else until it is closed, and its client waits on it instead of opening another.
 */
export function limitConnectionsPerClient(
  server: Server,
  perClient: number,
  { holdMs = 10_000, maxHeld = 1_024 }: { holdMs?: number; maxHeld?: number } = {},
): ConnectionLimits {
  const open = new Map<string, number>();
  const held = new Set<Socket>();
  // The server's own listeners (Node's HTTP parser among them) run only for connections within the
  // limit: a held connection never gets a parser.
  const serve = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > perClient) {
      hold(socket);
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
    for (const listener of serve) listener.call(server, socket);
  });

  function hold(socket: Socket): void {
    if (held.size >= maxHeld) {
      socket.destroy();
      return;
    }
    held.add(socket);
    // Read nothing: what the client sends stays in the kernel's buffer.
    socket.pause();
    socket.on('error', () => socket.destroy());
    const timer = setTimeout(() => socket.destroy(), holdMs);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      held.delete(socket);
    });
  }

  return {
    releaseHeld() {
      for (const socket of held) socket.destroy();
    },
    get held() {
      return held.size;
    },
  };
}
