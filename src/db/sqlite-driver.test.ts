import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteTestDatabase } from '../../test/databases.js';
import { sharedInCommit } from './sqlite-driver.js';

// The group commit of the SQLite driver: transactions arriving in the same turn of the event loop share
// one commit, each in its own savepoint. Engine-specific, so it runs on SQLite whatever the project.
// The driver does no I/O of its own (better-sqlite3 is synchronous): whatever it orders happens within
// a few turns of the event loop, so these tests count turns (`withinTurns`), never time.

// biome-ignore lint/suspicious/noExplicitAny: a scratch table of its own
type Db = Kysely<any>;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scratch() {
  const database = await createSqliteTestDatabase({ empty: true });
  cleanups.push(() => database.destroy());
  const db = database.db as unknown as Db;
  await sql`create table t (id integer primary key, v text not null unique)`.execute(db);
  return { db, url: database.url };
}

const values = async (db: Db) =>
  (await db.selectFrom('t').select('v').orderBy('id').execute()).map((r) => r.v as string);

/**
 * Commits SQLite wrote while `work` ran, read off the WAL file: the last frame of each commit carries
 * the database's size in pages, every other frame 0. (PRAGMA data_version cannot count them: another
 * connection sees it move once however many commits it missed.) The WAL is restarted only after a
 * checkpoint, which these small tests never reach.
 */
async function commitsDuring(url: string, work: () => Promise<unknown>): Promise<number> {
  const before = commitsInWal(url);
  await work();
  return commitsInWal(url) - before;
}

function commitsInWal(url: string): number {
  return walFrames(url).filter((frame) => frame.commit).length;
}

/**
 * The frames of the WAL since its last restart, in order: whether each ends a commit. Frames left from
 * before a restart carry the old salts.
 */
function walFrames(url: string): { commit: boolean }[] {
  const wal = readFileSync(`${url.slice('sqlite:'.length)}-wal`);
  if (wal.length < 32) return [];
  const pageSize = wal.readUInt32BE(8);
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  const frames: { commit: boolean }[] = [];
  for (let frame = 32; frame + 24 + pageSize <= wal.length; frame += 24 + pageSize) {
    if (wal.readUInt32BE(frame + 8) !== salts[0] || wal.readUInt32BE(frame + 12) !== salts[1]) break;
    frames.push({ commit: wal.readUInt32BE(frame + 4) !== 0 });
  }
  return frames;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * What `promise` settles to within `turns` turns of the event loop, or 'still waiting'. A transaction
 * needs three at most (its begin, its commit, the group's COMMIT), so ten only fail what waits for
 * something else.
 */
async function withinTurns<T>(promise: Promise<T>, turns = 10): Promise<T | 'still waiting'> {
  const waited = (async () => {
    for (let i = 0; i < turns; i++) await turn();
    return 'still waiting' as const;
  })();
  return Promise.race([promise, waited]);
}

/** A promise the test settles itself. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const reason = (result: PromiseSettledResult<unknown> | undefined) =>
  result?.status === 'rejected' ? String(result.reason) : `not rejected: ${JSON.stringify(result)}`;

describe('SQLite group commit', () => {
  it('commits transactions of the same turn together, each one resolved once committed', async () => {
    const { db, url } = await scratch();
    // What the read-only connection (committed state only) shows each caller when its commit resolves.
    const seenOnResolve: boolean[] = [];
    const commits = await commitsDuring(url, () =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          db
            .transaction()
            .execute(async (trx) => {
              await trx
                .insertInto('t')
                .values({ v: `a${i}` })
                .execute();
              await trx
                .insertInto('t')
                .values({ v: `b${i}` })
                .execute();
            })
            .then(async () => seenOnResolve.push((await values(db)).includes(`b${i}`))),
        ),
      ),
    );
    expect(commits).toBe(1);
    expect(seenOnResolve).toEqual(Array(20).fill(true));
    expect(await values(db)).toHaveLength(40);
  });

  it('commits at most 256 transactions together', async () => {
    const { db, url } = await scratch();
    const commits = await commitsDuring(url, () =>
      Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          db.transaction().execute((trx) =>
            trx
              .insertInto('t')
              .values({ v: `${i}` })
              .execute(),
          ),
        ),
      ),
    );
    expect(commits).toBe(2);
    expect(await values(db)).toHaveLength(300);
  });

  it('rolls back only the transaction that failed, with its own error', async () => {
    const { db, url } = await scratch();
    await db.insertInto('t').values({ v: 'taken' }).execute();
    let results: PromiseSettledResult<unknown>[] = [];
    const commits = await commitsDuring(url, async () => {
      results = await Promise.allSettled([
        db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'first' }).execute()),
        db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ v: 'undone' }).execute();
          await trx.insertInto('t').values({ v: 'taken' }).execute();
        }),
        db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ v: 'also undone' }).execute();
          throw new Error('changed my mind');
        }),
        db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'last' }).execute()),
      ]);
    });
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(reason(results[1])).toMatch(/UNIQUE/);
    expect((results[2] as PromiseRejectedResult).reason).toEqual(new Error('changed my mind'));
    // Those before and after the failures still share one commit.
    expect(commits).toBe(1);
    expect(await values(db)).toEqual(['taken', 'first', 'last']);
  });

  it("keeps a transaction's own savepoints inside its savepoint of the group", async () => {
    const { db } = await scratch();
    const trx = await db.startTransaction().execute();
    await trx.insertInto('t').values({ v: 'kept' }).execute();
    const inner = await trx.savepoint('inner').execute();
    await inner.insertInto('t').values({ v: 'undone' }).execute();
    const rolledBack = await inner.rollbackToSavepoint('inner').execute();
    const second = await rolledBack.savepoint('second').execute();
    await second.insertInto('t').values({ v: 'released' }).execute();
    await (await second.releaseSavepoint('second').execute()).commit().execute();
    expect(await values(db)).toEqual(['kept', 'released']);
  });

  it('never shows a read outside transactions what is not committed yet', async () => {
    const { db } = await scratch();
    let seenInside: string[] = [];
    let seenOutside: string[] = [];
    await Promise.all([
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ v: 'pending' }).execute();
        seenInside = await values(trx);
        const outside = await withinTurns(values(db));
        if (outside === 'still waiting') throw new Error('a read outside the transaction waited for it');
        seenOutside = outside;
      }),
    ]);
    expect(seenInside).toEqual(['pending']);
    expect(seenOutside).toEqual([]);
    expect(await values(db)).toEqual(['pending']);
  });

  it('answers a write outside transactions once it is committed, with its own result', async () => {
    const { db } = await scratch();
    let seenOnAnswer: string[] = [];
    const [inserted, failed] = await Promise.allSettled([
      db
        .insertInto('t')
        .values({ v: 'x' })
        .returning('id')
        .executeTakeFirstOrThrow()
        .then(async (row) => {
          seenOnAnswer = await values(db);
          return row;
        }),
      db.insertInto('t').values({ v: 'x' }).execute(),
      db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'y' }).execute()),
    ]);
    expect(inserted).toEqual({ status: 'fulfilled', value: { id: 1 } });
    expect(reason(failed)).toMatch(/UNIQUE/);
    expect(seenOnAnswer).toContain('x');
    expect(await values(db)).toEqual(['x', 'y']);
  });

  it('commits the open group before a statement that needs the writer alone', async () => {
    const { db } = await scratch();
    let plain: Promise<unknown> = Promise.resolve();
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ v: 'grouped' }).execute();
      // Waits in line behind this transaction; then the group must be committed, or its BEGIN fails.
      plain = db.connection().execute(async (connection) => {
        await sql`begin immediate`.execute(connection);
        await sql`insert into t (v) values ('plain')`.execute(connection);
        await sql`commit`.execute(connection);
      });
    });
    await plain;
    expect(await values(db)).toEqual(['grouped', 'plain']);
  });

  it("hands the group's first answer to its others, until a write to the watched table ends it", async () => {
    const { db } = await scratch();
    await sql`create table w (id integer primary key, v text not null)`.execute(db);
    let reads = 0;
    const read = () => Promise.resolve(`read ${++reads}`);
    const seen: { first: boolean; value: string | undefined }[] = [];
    const share = (trx: Db) => sharedInCommit(trx, 'k', 'w', read);
    await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        seen.push(await share(trx));
        throw new Error('rolled back: its claim and its answer do not count');
      }),
      db.transaction().execute(async (trx) => {
        seen.push(await share(trx));
      }),
      db.transaction().execute(async (trx) => {
        seen.push(await share(trx));
        // A write to another table leaves the answer; one to the watched table ends it (raw SQL, which
        // the driver cannot place, would end it too).
        await trx.insertInto('t').values({ v: 'other' }).execute();
      }),
      db.transaction().execute(async (trx) => {
        seen.push(await share(trx));
        await trx.insertInto('w').values({ v: 'watched' }).execute();
      }),
      db.transaction().execute(async (trx) => {
        seen.push(await share(trx));
      }),
    ]);
    expect(seen).toEqual([
      { first: true, value: 'read 1' },
      { first: true, value: 'read 2' },
      { first: false, value: 'read 2' },
      { first: false, value: 'read 2' },
      { first: false, value: undefined },
    ]);
    // Each key watches its own table: a write to one ends only the answers watching it.
    const watched = await Promise.all([
      db.transaction().execute(async (trx) => {
        await sharedInCommit(trx, 'on w', 'w', async () => 'w kept');
        await sharedInCommit(trx, 'on t', 't', async () => 't kept');
      }),
      db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'ends t' }).execute()),
      db
        .transaction()
        .execute(async (trx) => [
          await sharedInCommit(trx, 'on w', 'w', read),
          await sharedInCommit(trx, 'on t', 't', read),
        ]),
    ]);
    expect(watched[2]).toEqual([
      { first: false, value: 'w kept' },
      { first: false, value: undefined },
    ]);
    // A new group reads anew; outside a transaction, every call does.
    expect(await db.transaction().execute((trx) => share(trx))).toEqual({ first: true, value: 'read 3' });
    expect(await share(db)).toEqual({ first: true, value: 'read 4' });
  });
});

describe('SQLite group commit: a group that fails as a whole', () => {
  it('rejects every waiter of a failed COMMIT, commits none of them, and commits the next group', async () => {
    const { db } = await scratch();
    // A deferred foreign key is checked by COMMIT alone: not by the statement, nor by the RELEASE of
    // the transaction's savepoint. So the orphan's transaction succeeds on its own and the group's COMMIT
    // fails, leaving SQLite's transaction open for the driver to roll back.
    await sql`create table parent (id integer primary key)`.execute(db);
    await sql`create table child (id integer primary key, parent_id integer not null references parent (id) deferrable initially deferred)`.execute(
      db,
    );
    let outside: Promise<unknown> = Promise.resolve();
    const results: PromiseSettledResult<unknown>[] = await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ v: 'before' }).execute();
        // A write outside transactions, in line behind this one: the same group.
        outside = db.insertInto('t').values({ v: 'outside' }).execute();
      }),
      db.transaction().execute((trx) => trx.insertInto('child').values({ parent_id: 404 }).execute()),
      db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'after' }).execute()),
    ]);
    results.push(...(await Promise.allSettled([outside])));
    expect(results.map(reason)).toEqual(Array(4).fill('SqliteError: FOREIGN KEY constraint failed'));
    expect(await values(db)).toEqual([]);
    expect(await db.selectFrom('child').selectAll().execute()).toEqual([]);

    await Promise.all([
      db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'next' }).execute()),
      db.insertInto('t').values({ v: 'next outside' }).execute(),
    ]);
    expect(await values(db)).toEqual(['next outside', 'next']);
  });

  it('rejects the group so far when a statement rolls back the whole transaction; later ones commit', async () => {
    const { db } = await scratch();
    await db.insertInto('t').values({ v: 'taken' }).execute();
    // OR ROLLBACK ends SQLite's transaction, not only the statement (as do some I/O and disk-full
    // errors): the savepoints of the group are gone with it, those already released included.
    const seenByLast: string[][] = [];
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'first' }).execute()),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ v: 'undone' }).execute();
        await trx.insertInto('t').orRollback().values({ v: 'taken' }).execute();
      }),
      db
        .transaction()
        .execute((trx) => trx.insertInto('t').values({ v: 'last' }).execute())
        .then(async () => seenByLast.push(await values(db))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(reason(results[0])).toMatch(/UNIQUE/);
    expect(reason(results[1])).toMatch(/UNIQUE/);
    expect(seenByLast).toEqual([['taken', 'last']]);
    expect(await values(db)).toEqual(['taken', 'last']);
  });
});

describe('SQLite checkpoints', () => {
  const framesInWal = (url: string) => walFrames(url).length;

  it('lets the WAL reach 4,000 pages before a checkpoint starts it again (SQLite: 1,000)', async () => {
    const { db, url } = await scratch();
    await sql`create table big (id integer primary key, b blob not null)`.execute(db);
    // A commit of 100 rows of 3,500 bytes: a page each, so about 100 frames.
    const commit = () =>
      sql`insert into big (b) with recursive s (i) as (select 1 union all select i + 1 from s where i < 100)
        select randomblob(3500) from s`.execute(db);
    let most = 0;
    for (let i = 0; i < 38; i++) {
      await commit();
      const frames = framesInWal(url);
      // Never restarted so far: each commit only adds frames.
      expect(frames).toBeGreaterThan(most);
      most = frames;
    }
    expect(most).toBeGreaterThan(3_800);
    // Past 4,000 pages a commit checkpoints; the next one starts the WAL from its beginning.
    for (let i = 0; i < 4; i++) await commit();
    expect(framesInWal(url)).toBeLessThan(most);
  });
});

describe('SQLite reads beside the writer', () => {
  it('goes on reading the committed state while a transaction holds the writer', async () => {
    const { db } = await scratch();
    await db.insertInto('t').values({ v: 'committed' }).execute();
    const holding = gate();
    const inWrite = gate();
    const write = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ v: 'pending' }).execute();
      inWrite.open();
      await holding.opened;
    });
    await inWrite.opened;
    try {
      expect(await withinTurns(values(db))).toEqual(['committed']);
      expect(
        await withinTurns(
          db
            .selectFrom('t')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst(),
        ),
      ).toEqual({
        n: 1,
      });
    } finally {
      holding.open();
      await write;
    }
    expect(await values(db)).toEqual(['committed', 'pending']);
  });

  it('streams a large read without holding the writer, from a snapshot, with other reads going on', async () => {
    const { db } = await scratch();
    const rows = 50_000;
    await sql`create table big (n integer primary key)`.execute(db);
    await sql`insert into big (n) with recursive s (i) as (select 1 union all select i + 1 from s where i < ${rows}) select i from s`.execute(
      db,
    );
    let streamed = 0;
    let sum = 0;
    let writes = 0;
    for await (const row of db.selectFrom('big').select('n').orderBy('n').stream()) {
      streamed++;
      sum += row.n as number;
      // Slowly: a turn of the event loop every 1,000 rows, and writes, each awaited, every 5,000.
      if (streamed % 1000 === 0) await turn();
      if (streamed % 5000 === 0) {
        writes++;
        expect(
          await withinTurns(
            db.transaction().execute((trx) =>
              trx
                .insertInto('big')
                .values({ n: rows + writes })
                .execute(),
            ),
          ),
        ).not.toBe('still waiting');
        expect(
          await withinTurns(
            db
              .insertInto('t')
              .values({ v: `w${writes}` })
              .execute(),
          ),
        ).not.toBe('still waiting');
        // Reads outside the stream see each commit at once.
        expect((await values(db)).at(-1)).toBe(`w${writes}`);
      }
    }
    // What was committed while it streamed is not in the stream: it read one snapshot.
    expect(streamed).toBe(rows);
    expect(sum).toBe((rows * (rows + 1)) / 2);
    expect(writes).toBe(10);
    const { total } = await db
      .selectFrom('big')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    expect(total).toBe(rows + writes);
  });

  it('lets go of a stream left early: its snapshot no longer holds back a checkpoint', async () => {
    const { db } = await scratch();
    await sql`insert into t (v) with recursive s (i) as (select 1 union all select i + 1 from s where i < 1000) select i from s`.execute(
      db,
    );
    let read = 0;
    for await (const _ of db.selectFrom('t').select('v').stream()) {
      if (++read === 10) break;
    }
    await db.insertInto('t').values({ v: 'after' }).execute();
    // A reader's snapshot keeps a checkpoint from copying the frames committed after it.
    const [checkpoint] = (
      await sql<{ log: number; checkpointed: number }>`pragma wal_checkpoint(passive)`.execute(db)
    ).rows;
    expect(checkpoint?.checkpointed).toBe(checkpoint?.log);
  });

  it.skipIf(!existsSync('/proc/self/fd'))('closes the connection of a stream however it ends', async () => {
    const { db } = await scratch();
    await db
      .insertInto('t')
      .values([{ v: 'a' }, { v: 'b' }])
      .execute();
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const stream = () => db.selectFrom('t').selectAll().stream();
    // SQLite keeps the descriptor of the first connection closed while others lock the file, to reuse.
    for await (const _ of stream()) {
    }
    const before = openFiles();
    for (let i = 0; i < 3; i++) {
      for await (const _ of stream()) {
      }
      for await (const _ of stream()) break;
      await expect(async () => {
        for await (const _ of stream()) throw new Error('consumer failed');
      }).rejects.toThrow('consumer failed');
    }
    expect(openFiles()).toBe(before);
  });

  it("streams a transaction's own writes inside it", async () => {
    const { db } = await scratch();
    await db.insertInto('t').values({ v: 'committed' }).execute();
    const streamed = await db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ v: 'mine' }).execute();
      const seen: string[] = [];
      for await (const row of trx.selectFrom('t').select('v').orderBy('id').stream())
        seen.push(row.v as string);
      return seen;
    });
    expect(streamed).toEqual(['committed', 'mine']);
  });
});
