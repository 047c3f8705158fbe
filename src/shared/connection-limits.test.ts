import { createServer, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { limitConnectionsPerClient } from './connection-limits.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function server(perClient: number): Promise<number> {
  const http = createServer((_request, response) => response.end('ok'));
  limitConnectionsPerClient(http, perClient);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
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

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<false>((resolve) => setTimeout(() => resolve(false), ms))]);

const get = (port: number, localAddress: string) =>
  new Promise<number>((resolve) => {
    const req = request({ port, host: '127.0.0.1', localAddress, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end();
  });

describe('limitConnectionsPerClient', () => {
  it('closes a client’s connection past its limit at once, and lets other clients in', async () => {
    const port = await server(3);
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await hold(port, '127.0.0.1'));
    const fourth = await hold(port, '127.0.0.1');
    expect(await within(fourth.closed, 2_000)).toBe(true);
    for (const connection of held) expect(await within(connection.closed, 100)).toBe(false);
    expect(await get(port, '127.0.0.2')).toBe(200);
    expect(await get(port, '127.0.0.1')).toBe(0);
  });

  it('counts a closed connection out again', async () => {
    const port = await server(1);
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
});
