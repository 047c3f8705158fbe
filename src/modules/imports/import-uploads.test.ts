import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../../../test/harness.js';
import { csv, FILMS } from '../../../test/import-world.js';
import { multipart } from '../../../test/multipart.js';
import { importsWorld } from '../../../test/tmdb-world.js';
import { signedInClient } from '../../../test/web-client.js';
import { MAX_PENDING_IMPORTS } from './import-uploads.js';
import { IMPORT_JOB, type ImportJobPayload } from './imports.jobs.js';

// Issue 27's outside probe: what an upload can do to the server. Every answer is a 4xx or a job's
// clear failure; the process goes on; nothing is left on disk.

const HISTORY = 'title,year,tmdbId,imdbId,watchedAt,comment,location';

describe('uploads cannot hurt the server', () => {
  const world = importsWorld(FILMS);

  const upload = (
    user: TestUser,
    query: string,
    payload: string | Buffer,
    headers: Record<string, string> = {},
  ) =>
    world.ctx.app.inject({
      method: 'POST',
      url: `/api/users/${user.user.name}/imports?${query}`,
      headers: { ...user.auth, 'content-type': 'application/octet-stream', ...headers },
      payload,
    });
  const status = (user: TestUser, jobId: number) =>
    world.ctx.app.inject({
      method: 'GET',
      url: `/api/users/${user.user.name}/imports/${jobId}`,
      headers: user.auth,
    });
  const uploadsLeft = () => readdirSync(world.importsDir);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

  /** Sends `head` and `body` on a raw connection, then closes it before the body it announced is done. */
  const brokenOff = (port: number, head: string, body: Buffer) =>
    new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(answer));
      socket.write(head);
      socket.write(body, () => setTimeout(() => socket.end(), 100));
    });

  it('an upload that breaks off mid-file is a 400 or a closed connection, the server goes on, nothing is kept', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const browser = await signedInClient(world.ctx.app, 'alice');
    await world.ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const address = world.ctx.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');

    // The web form, whose body is read before the CSRF check (so no token is needed to try this):
    // a whole request whose form ends inside the file ("Part terminated early"), and one cut off.
    const form = multipart(
      { format: 'movary' },
      {
        name: 'history.csv',
        content: csv(HISTORY, 'Salt Road Summer,2016,720001,,2023-04-01,,').repeat(2000),
      },
    );
    const cut = form.payload.subarray(0, form.payload.length - 5000);
    const head = (length: number) =>
      `POST /settings/data/imports HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nContent-Type: ${form.contentType}\r\nContent-Length: ${length}\r\n\r\n`;
    expect(await brokenOff(address.port, head(cut.length), cut)).toMatch(/^HTTP\/1\.1 400 /);
    await brokenOff(address.port, head(form.payload.length), cut);
    // The API: a body shorter than it said.
    await brokenOff(
      address.port,
      `POST /api/users/alice/imports?format=movary HTTP/1.1\r\nHost: x\r\nAuthorization: ${alice.auth.authorization}\r\nContent-Type: text/csv\r\nContent-Length: 900000\r\n\r\n`,
      Buffer.from(csv(HISTORY, 'Salt Road Summer,2016,720001,,2023-04-01,,')),
    );
    await settle();
    const health = await fetch(`http://127.0.0.1:${address.port}/healthz`);
    expect(health.status).toBe(200);
    expect(
      uploadsLeft(),
      JSON.stringify(uploadsLeft().map((d) => [d, readdirSync(join(world.importsDir, d))])),
    ).toEqual([]);
    expect(await world.ctx.app.jobs.queue.counts()).toMatchObject({ queued: 0 });
  });

  it('a zip whose entries lie about their size is refused at once, before anything is queued', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const bomb = lyingZip(deflateRawSync(Buffer.alloc(64 * 1024 * 1024)), 20);
    expect(bomb.length).toBeLessThan(200_000);
    const res = await upload(alice, 'format=movary', bomb);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'InvalidRequestBody',
      message: expect.stringMatching(/not a readable zip file/),
    });
    expect(await world.ctx.app.jobs.queue.counts()).toMatchObject({ queued: 0 });
    expect(uploadsLeft()).toEqual([]);
  });

  it('an export of more than 500,000 rows is refused with a 400 (a small zip of a huge file)', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const rows = `${HISTORY}\n${'Salt Road Summer,2016,720001,,2023-04-01,,\n'.repeat(500_001)}`;
    const zip = Buffer.from(zipSync({ 'history.csv': strToU8(rows) }, { level: 9 }));
    expect(zip.length).toBeLessThan(1024 * 1024);
    const res = await upload(alice, 'format=movary', zip);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/more than 500,000 rows/);
    expect(uploadsLeft()).toEqual([]);
  }, 120_000);

  it('a value nested 100,000 deep is one unreadable row, never a 5xx', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const body = `{"format":"cinelog","version":1,"user":{"x":${deep}},"history":[${deep},{"movie":${deep},"watchedAt":null,"plays":1},{"movie":{"tmdbId":720001},"watchedAt":"2023-01-01","plays":1}]}`;
    const accepted = await upload(alice, 'format=cinelog', body);
    expect(accepted.statusCode, accepted.body).toBe(202);
    await world.ctx.app.jobs.runner.runUntilEmpty();
    const job = (await status(alice, accepted.json().jobId)).json();
    expect(job).toMatchObject({ state: 'done', summary: { added: 1, unmatched: 2 } });
    expect(job.summary.unmatchedRows.map((row: { reason: string }) => row.reason)).toEqual([
      'cannot be read: history[0] is a list, not an object',
      'cannot be read: it has no movie',
    ]);
  });

  it('the status of an import with many unmatched rows is read whole', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const unknown = Array.from(
      { length: 40 },
      (_, i) => `A Film Nobody Made ${i},1990,${799_000 + i},,2023-01-01,,`,
    );
    const accepted = await upload(alice, 'format=movary&filename=history.csv', csv(HISTORY, ...unknown));
    expect(accepted.statusCode).toBe(202);
    await world.ctx.app.jobs.runner.runUntilEmpty();
    const res = await status(alice, accepted.json().jobId);
    expect(res.statusCode).toBe(200);
    expect(res.json().summary.unmatchedRows).toHaveLength(40);
  });

  it('a stored result cut short by an earlier version reads as a failed import, never a 500', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const accepted = await upload(
      alice,
      'format=movary&filename=history.csv',
      csv(HISTORY, 'Salt Road Summer,2016,720001,,2023-04-01,,'),
    );
    const jobId = accepted.json().jobId as number;
    await world.ctx.app.jobs.runner.runUntilEmpty();
    await world.ctx.db
      .updateTable('jobs')
      .set({ result: '{"added":1,"unmatchedRows":[{"file":"hist' })
      .where('id', '=', jobId)
      .execute();
    const res = await status(alice, jobId);
    expect(res.statusCode).toBe(200);
    expect(res.json().summary).toEqual({ error: 'the result of this import was lost: run it again' });
  });

  it(`a user has at most ${MAX_PENDING_IMPORTS} imports waiting: the next is a 429 before its body is read; another user goes on`, async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const bob = await createUser(world.ctx, { name: 'bob' });
    const file = csv(HISTORY, 'Salt Road Summer,2016,720001,,2023-04-01,,');
    for (let i = 0; i < MAX_PENDING_IMPORTS; i++) {
      expect((await upload(alice, 'format=movary', file)).statusCode).toBe(202);
    }
    const refused = await upload(alice, 'format=movary', file);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: 'TooManyRequests',
      message: `you have ${MAX_PENDING_IMPORTS} imports waiting or running: wait for one to finish, then try again`,
    });
    expect((await upload(bob, 'format=movary', file)).statusCode).toBe(202);
    await world.ctx.app.jobs.runner.runUntilEmpty();
    expect((await upload(alice, 'format=movary', file)).statusCode).toBe(202);
  });

  it("a user's latest imports are theirs, however many another user queued", async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const bob = await createUser(world.ctx, { name: 'bob' });
    const mine = await upload(
      alice,
      'format=movary',
      csv(HISTORY, 'Salt Road Summer,2016,720001,,2023-04-01,,'),
    );
    for (let i = 0; i < 600; i++) {
      await world.ctx.app.jobs.queue.enqueue(IMPORT_JOB, { userId: bob.user.id } as ImportJobPayload, {
        userId: bob.user.id,
      });
    }
    const { createImportUploads } = await import('./import-uploads.js');
    const uploads = createImportUploads({
      imports: null as never,
      queue: world.ctx.app.jobs.queue,
      importsDir: world.importsDir,
    });
    expect((await uploads.recent(alice.user, 10)).map((job) => job.jobId)).toEqual([mine.json().jobId]);
  });

  it('a job whose file cannot be imported fails once, without retries, and removes its upload', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const dir = join(world.importsDir, 'by-hand');
    mkdirSync(dir);
    writeFileSync(join(dir, 'history.csv'), 'not,a,movary,file\n1,2,3,4\n');
    const payload: ImportJobPayload = {
      userId: alice.user.id,
      userName: 'alice',
      format: 'movary',
      dir,
      dryRun: false,
    };
    const jobId = (await world.ctx.app.jobs.queue.enqueue(IMPORT_JOB, payload, {
      maxAttempts: 3,
      userId: alice.user.id,
    }))!;
    expect(await world.ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    const job = (await status(alice, jobId)).json();
    expect(job).toMatchObject({
      state: 'done',
      summary: { error: expect.stringMatching(/is not a Movary export/) },
    });
    expect(uploadsLeft()).toEqual([]);
  });

  it('a job that fails its last try removes its upload', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const accepted = await upload(
      alice,
      'format=movary&filename=history.csv',
      csv(HISTORY, 'Salt Road Summer,2016,720001,,2023-04-01,,'),
    );
    expect(accepted.statusCode).toBe(202);
    await world.ctx.db
      .updateTable('jobs')
      .set({ max_attempts: 1 })
      .where('id', '=', accepted.json().jobId)
      .execute();
    world.fake.failNext(1000, 503);
    expect(await world.ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 0, failed: 1 });
    expect((await status(alice, accepted.json().jobId)).json()).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/TMDB is unavailable/),
    });
    expect(uploadsLeft()).toEqual([]);
  });

  it('the sweep removes old uploads no job waits for, and keeps those a job waits for', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const accepted = await upload(
      alice,
      'format=movary&filename=history.csv',
      csv(HISTORY, 'Salt Road Summer,2016,720001,,2023-04-01,,'),
    );
    expect(accepted.statusCode).toBe(202);
    const waiting = uploadsLeft();
    expect(waiting).toHaveLength(1);
    const orphan = join(world.importsDir, 'left-by-a-crash.incoming');
    mkdirSync(orphan);
    writeFileSync(join(orphan, 'history.csv'), 'x');
    const young = join(world.importsDir, 'being-received.incoming');
    mkdirSync(young);
    const dayAgo = new Date(Date.now() - 86_400_000);
    for (const name of [...waiting, 'left-by-a-crash.incoming'])
      utimesSync(join(world.importsDir, name), dayAgo, dayAgo);
    const { createImportUploads } = await import('./import-uploads.js');
    const uploads = createImportUploads({
      imports: null as never,
      queue: world.ctx.app.jobs.queue,
      importsDir: world.importsDir,
    });
    expect(await uploads.sweep()).toBe(1);
    expect(uploadsLeft().sort()).toEqual([...waiting, 'being-received.incoming'].sort());
  });

  it('a body past 32 MB is a 413: refused from its declared length before it is read, or as it streams in', async () => {
    const alice = await createUser(world.ctx, { name: 'alice' });
    const declared = await upload(alice, 'format=movary', 'x', {
      'content-length': String(33 * 1024 * 1024),
    });
    expect(declared.statusCode).toBe(413);
    const streamed = await world.ctx.app.inject({
      method: 'POST',
      url: '/api/users/alice/imports?format=movary',
      headers: { ...alice.auth, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
      payload: Buffer.alloc(32 * 1024 * 1024 + 10, 0x61),
    });
    expect(streamed.statusCode).toBe(413);
    expect(streamed.json()).toEqual({ error: 'PayloadTooLarge', message: 'the file is larger than 32 MB' });
    expect(uploadsLeft()).toEqual([]);
  });
});

/**
 * A zip of `entries` entries that all point at one deflate stream and declare it unpacks to 0 bytes:
 * the directory says nothing is there, the stream says `data` is.
 */
function lyingZip(data: Buffer, entries: number): Buffer {
  const name = Buffer.from('history.csv');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(0, 22); // "unpacks to 0 bytes"
  local.writeUInt16LE(name.length, 26);
  const head = Buffer.concat([local, name, data]);
  const central: Buffer[] = [];
  for (let i = 0; i < entries; i++) {
    const entryName = Buffer.from(`history-${i}.csv`);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(0, 24);
    entry.writeUInt16LE(entryName.length, 28);
    entry.writeUInt32LE(0, 42); // every entry at the one local header
    central.push(entry, entryName);
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries, 8);
  end.writeUInt16LE(entries, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(head.length, 16);
  return Buffer.concat([head, directory, end]);
}
