import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Closes the connections being held (the server is closing: they would keep it open). */
  releaseHeld(): void;
  /** How many connections are being held now (tests). */
  readonly held: number;
  /** How many client addresses are gated now (tests). */
  readonly gated: number;
}

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/** A client whose requests wait while the connections it opened past its limit are being accepted. */
interface Gate {
  /** Its requests that arrived while gated, in order. */
  waiting: [IncomingMessage, ServerResponse][];
  /** A connection of it was held since the last turn of the event loop. */
  fresh: boolean;
  /** When the gate closed (performance.now()). */
  since: number;
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
 *
 * Why a gate: the held connections themselves are accepted one per turn, behind the turn's busy
 * connections; while they are, their client's requests wait (`gate`, below).
 */
export function limitConnectionsPerClient(
  server: Server,
  perClient: number,
  {
    holdMs = 10_000,
    maxHeld = 1_024,
    maxGateMs = 250,
  }: { holdMs?: number; maxHeld?: number; maxGateMs?: number } = {},
): ConnectionLimits {
  const open = new Map<string, number>();
  const held = new Set<Socket>();
  const gates = new Map<string, Gate>();
  /** The server's own request listeners (Fastify's), while a gate stands in for them. */
  let handlers: RequestListener[] | null = null;
  // The server's own listeners (Node's HTTP parser among them) run only for connections within the
  // limit: a held connection never gets a parser.
  const serve = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > perClient) {
      hold(socket);
      gate(address);
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

  /**
   * The gate: while a client's connections past its limit are being accepted, its requests wait.
   *
   * Node's libuv accepts one connection per turn of the event loop, and a turn serves every busy
   * connection once. A client with 64 busy connections and 2,000 more in the kernel's listen queue so
   * makes each turn last 64 requests (11-20 ms on a slow VM), and another client's new connection waits
   * behind the 1,936 to be held: seconds (docs/performance.md, "Held connections"). With the flooding
   * client's requests waiting, its connections fall quiet once their current request is parsed, a turn
   * is one accept, and the queue is through in milliseconds. Its waiting requests are handled as soon as
   * a turn passes with none of its connections held (the queue is empty), or after `maxGateMs`, so a
   * client that reconnects forever is slowed, not starved.
   *
   * Only while a gate stands does a listener stand between Node and the server's request handler: the
   * requests of a server with no gate cost nothing more.
   */
  function gate(address: string): void {
    const existing = gates.get(address);
    if (existing !== undefined) {
      existing.fresh = true;
      return;
    }
    gates.set(address, { waiting: [], fresh: true, since: performance.now() });
    if (handlers === null) {
      handlers = server.listeners('request') as RequestListener[];
      server.removeAllListeners('request');
      server.on('request', gated);
      setImmediate(watch);
    }
  }

  function gated(request: IncomingMessage, response: ServerResponse): void {
    const waiting = gates.get(request.socket.remoteAddress ?? '');
    if (waiting === undefined) handle(request, response);
    else waiting.waiting.push([request, response]);
  }

  function handle(request: IncomingMessage, response: ServerResponse): void {
    for (const listener of handlers ?? (server.listeners('request') as RequestListener[]))
      listener.call(server, request, response);
  }

  /** Once a turn (the check phase): opens the gates of clients with no connection held since the last. */
  function watch(): void {
    const now = performance.now();
    for (const [address, gate] of gates) {
      if (gate.fresh && now - gate.since < maxGateMs) gate.fresh = false;
      else lift(address, gate);
    }
    if (gates.size > 0) setImmediate(watch);
    else restore();
  }

  function lift(address: string, gate: Gate): void {
    gates.delete(address);
    for (const [request, response] of gate.waiting) {
      // A connection closed while it waited has no one to answer.
      if (!request.socket.destroyed) handle(request, response);
    }
  }

  function restore(): void {
    if (handlers === null) return;
    server.removeListener('request', gated);
    for (const listener of handlers) server.on('request', listener);
    handlers = null;
  }

  return {
    releaseHeld() {
      for (const socket of held) socket.destroy();
      for (const [address, gate] of gates) lift(address, gate);
      restore();
    },
    get held() {
      return held.size;
    },
    get gated() {
      return gates.size;
    },
  };
}
