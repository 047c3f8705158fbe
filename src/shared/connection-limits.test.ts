import { Agent, createServer, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectionLimits, limitConnectionsPerClient } from './connection-limits.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

let limits: ConnectionLimits;

let handled = 0;
/** How many connections were held when each request was handled. */
let heldWhenHandled: number[] = [];

async function server(
  perClient: number,
  options?: { holdMs?: number; maxHeld?: number; maxGateMs?: number },
  { busyMs = 0 }: { busyMs?: number } = {},
): Promise<number> {
  handled = 0;
  heldWhenHandled = [];
  const http = createServer((_request, response) => {
    heldWhenHandled.push(own.held);
    // A request that takes the event loop for a while, as a history page does on a slow machine.
    const until = performance.now() + busyMs;
    while (performance.now() < until);
    handled++;
    response.end('ok');
  });
  const own = limitConnectionsPerClient(http, perClient, options);
  limits = own;
  // Room in the listen queue for the floods below (Node's default is 511).
  await new Promise<void>((resolve) => http.listen({ port: 0, host: '127.0.0.1', backlog: 2_048 }, resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        own.releaseHeld();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A connection from `localAddress` that stays open: resolves once connected; `closed` once the server closes it. */
function hold(port: number, localAddress: string) {
  const socket: Socket = connect({ port, host: '127.0.0.1', localAddress });
  closers.push(async () => {
    socket.destroy();
  });
  const closed = new Promise<true>((resolve) => socket.on('close', () => resolve(true)));
  socket.on('error', () => undefined);
  return new Promise<{ socket: Socket; closed: Promise<true> }>((resolve) =>
    socket.on('connect', () => resolve({ socket, closed })),
  );
}

/**
 * `count` connections from 127.0.0.1 whose handshakes are done: past a client's limit, they wait in the
 * server's listen queue, to be accepted one a turn of its event loop.
 */
async function queued(port: number, count: number): Promise<void> {
  const sockets = Array.from({ length: count }, () => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.1' });
    socket.on('error', () => undefined);
    closers.push(async () => {
      socket.destroy();
    });
    return socket;
  });
  await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
}

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<false>((resolve) => setTimeout(() => resolve(false), ms))]);

const get = (port: number, localAddress: string, agent: Agent | false = false) =>
  new Promise<number>((resolve) => {
    const req = request({ port, host: '127.0.0.1', localAddress, agent }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end();
  });

describe('limitConnectionsPerClient', () => {
  it('holds a client’s connection past its limit unanswered, closes it after a while, and lets other clients in', async () => {
    const port = await server(3, { holdMs: 600 });
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await hold(port, '127.0.0.1'));
    const fourth = await hold(port, '127.0.0.1');
    // Sent a request, it gets no answer (no parser reads it), and it is not closed before its time.
    let answered = false;
    fourth.socket.on('data', () => {
      answered = true;
    });
    fourth.socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(await within(fourth.closed, 300)).toBe(false);
    expect(limits.held).toBe(1);
    expect(await get(port, '127.0.0.2')).toBe(200);
    expect(await within(fourth.closed, 2_000)).toBe(true);
    expect(answered).toBe(false);
    // The server's side closes a moment after the client hears of it.
    for (let i = 0; i < 100 && limits.held > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(limits.held).toBe(0);
    for (const connection of held) expect(await within(connection.closed, 100)).toBe(false);
  });

  it('closes at once a connection past the limit when enough are held already, and releases the held on demand', async () => {
    const port = await server(1, { holdMs: 60_000, maxHeld: 2 });
    await hold(port, '127.0.0.1');
    const second = await hold(port, '127.0.0.1');
    const third = await hold(port, '127.0.0.1');
    const fourth = await hold(port, '127.0.0.1');
    expect(await within(fourth.closed, 2_000)).toBe(true);
    expect(await within(second.closed, 100)).toBe(false);
    expect(limits.held).toBe(2);
    limits.releaseHeld();
    expect(await within(second.closed, 2_000)).toBe(true);
    expect(await within(third.closed, 2_000)).toBe(true);
  });

  it('counts a closed connection out again', async () => {
    const port = await server(1, { holdMs: 200 });
    const held = await hold(port, '127.0.0.1');
    expect(await get(port, '127.0.0.1')).toBe(0);
    held.socket.destroy();
    await held.closed;
    // The server hears of the close a moment later: the address may then connect again.
    const deadline = Date.now() + 2_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = await get(port, '127.0.0.1');
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(200);
  });

  it('lets another client in while one floods it with connections past its limit, then answers the flood too', async () => {
    // Each request takes 10 ms of the event loop; libuv accepts one connection a turn.
    const port = await server(2, { holdMs: 60_000 }, { busyMs: 10 });
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    closers.push(async () => agent.destroy());
    let flooding = true;
    let floodAnswers = 0;
    const flood = async () => {
      while (flooding) {
        const status = await get(port, '127.0.0.1', agent);
        if (status === 200) floodAnswers++;
      }
    };
    const loops = [flood(), flood()];
    while (handled < 10) await new Promise((resolve) => setTimeout(resolve, 5));
    // 60 more connections from the flooding address, left in the listen queue: each is accepted in a
    // turn of its own, behind the flood's two busy connections (20 ms a turn without the gate).
    await queued(port, 60);
    const before = handled;
    expect(await get(port, '127.0.0.2')).toBe(200);
    // Without the gate 63 of the flood's requests came first (one run).
    expect(handled - before).toBeLessThan(20);
    // The flood is answered again once its connections are held.
    const answered = floodAnswers;
    const deadline = Date.now() + 5_000;
    while (floodAnswers < answered + 10 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(floodAnswers).toBeGreaterThanOrEqual(answered + 10);
    expect(limits.held).toBe(60);
    expect(limits.gated).toBe(0);
    flooding = false;
    await Promise.all(loops);
  });

  it('answers a gated client after maxGateMs even while its connections keep coming', async () => {
    const port = await server(1, { holdMs: 60_000, maxGateMs: 5 });
    const served = await hold(port, '127.0.0.1');
    // 1,000 connections past the limit in the listen queue: accepted one a turn, tens of µs each, so
    // the gate stays fresh for longer than 5 ms.
    await queued(port, 1_000);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      served.socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.endsWith('ok')) resolve(text);
      });
    });
    served.socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(await within(answer, 5_000)).toMatch(/^HTTP\/1\.1 200/);
    // Handled while the queue was still being let in, not after it.
    expect(heldWhenHandled).toHaveLength(1);
    expect(heldWhenHandled[0]).toBeGreaterThan(0);
    expect(heldWhenHandled[0]).toBeLessThan(1_000);
    for (let i = 0; i < 500 && limits.held < 1_000; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(limits.held).toBe(1_000);
  });
});
