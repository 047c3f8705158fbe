import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AnswerBuffers } from './answer-buffers.js';
import { withToken } from './page-parts.js';

describe('answer buffers', () => {
  it('hands a buffer out again only after its answer closed', () => {
    const buffers = new AnswerBuffers();
    const first = new EventEmitter();
    const a = buffers.take(40_000, first);
    const b = buffers.take(40_000, new EventEmitter());
    expect(a.length).toBe(40_000);
    expect(a.buffer).not.toBe(b.buffer);
    expect(buffers.made).toBe(2);
    // Still open: a third answer gets a buffer of its own.
    const c = buffers.take(40_000, new EventEmitter());
    expect([a.buffer, b.buffer]).not.toContain(c.buffer);
    first.emit('close');
    expect(buffers.idleBytes).toBe(64 * 1024);
    const d = buffers.take(33_000, new EventEmitter());
    expect(d.buffer).toBe(a.buffer);
    expect(d.length).toBe(33_000);
    expect(buffers.made).toBe(3);
    expect(buffers.idleBytes).toBe(0);
  });

  it('keeps buffers by size, at most maxIdleBytes of them, and none past maxSize', () => {
    const buffers = new AnswerBuffers(16 * 1024, 64 * 1024);
    const answers = [new EventEmitter(), new EventEmitter(), new EventEmitter()];
    const small = buffers.take(5_000, answers[0]!);
    const other = buffers.take(9_000, answers[1]!);
    const huge = buffers.take(100_000, answers[2]!);
    expect(buffers.made).toBe(2);
    for (const answer of answers) answer.emit('close');
    // 8 KB and 16 KB cannot both wait within 16 KB: the second one given back is dropped.
    expect(buffers.idleBytes).toBe(8 * 1024);
    expect(buffers.take(100, new EventEmitter()).buffer).toBe(small.buffer);
    expect(buffers.take(9_000, new EventEmitter()).buffer).not.toBe(other.buffer);
    expect(huge.length).toBe(100_000);
  });

  it("keeps a slow reader's buffer from other answers until its answer is written", async () => {
    // 32 MB: more than the kernel takes in at once on loopback, so the slow answer's bytes wait in
    // Node for the client, in the buffer, while other answers are made.
    const buffers = new AnswerBuffers(256 * 1024 * 1024, 64 * 1024 * 1024);
    const pieces = Array.from({ length: 64 }, (_, i) =>
      Buffer.alloc(512 * 1024, String.fromCharCode(97 + (i % 26))),
    );
    const server = createServer((request, response) => {
      const page = withToken(pieces, `<${request.url!.slice(1)}>`, (size) => buffers.take(size, response));
      response.writeHead(200, { 'content-length': page.length, connection: 'close' });
      response.end(page);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const slow = connect(port, '127.0.0.1');
      slow.pause();
      slow.write('GET /slow HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
      // Until the kernel's buffers are full and the rest waits in Node.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(buffers.made).toBe(1);
      for (const n of [1, 2, 3]) {
        const body = Buffer.from(await (await fetch(`http://127.0.0.1:${port}/fast${n}`)).arrayBuffer());
        expect(body.equals(withToken(pieces, `<fast${n}>`))).toBe(true);
      }
      const chunks: Buffer[] = [];
      slow.on('data', (chunk: Buffer) => chunks.push(chunk));
      slow.resume();
      await new Promise((resolve) => slow.on('end', resolve));
      const answer = Buffer.concat(chunks);
      const body = answer.subarray(answer.indexOf('\r\n\r\n') + 4);
      expect(body.equals(withToken(pieces, '<slow>'))).toBe(true);
      expect(buffers.made).toBe(2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('gives every concurrent answer of a real server its own intact bytes', async () => {
    const buffers = new AnswerBuffers();
    // A page of about 40 KB cut at 25 tokens, as the history page is.
    const pieces = Array.from({ length: 26 }, (_, i) => Buffer.from(`<li>${String(i).repeat(1_500)}</li>`));
    let served = 0;
    const server = createServer((request, response) => {
      const token = `token-${request.url!.slice(1)}`;
      served++;
      const page = withToken(pieces, token, (size) => buffers.take(size, response));
      response.writeHead(200, { 'content-length': page.length });
      response.end(page);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const expected = (n: number) => pieces.map(String).join(`token-${n}`);
      for (let round = 0; round < 5; round++) {
        const numbers = Array.from({ length: 32 }, (_, i) => round * 100 + i);
        const bodies = await Promise.all(
          numbers.map(async (n) => (await fetch(`http://127.0.0.1:${port}/${n}`)).text()),
        );
        expect(bodies).toEqual(numbers.map(expected));
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(served).toBe(160);
    // Used again: far fewer buffers than answers.
    expect(buffers.made).toBeGreaterThan(0);
    expect(buffers.made).toBeLessThanOrEqual(32);
  });
});
