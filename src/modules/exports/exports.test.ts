import { strFromU8, unzipSync } from 'fflate';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { MAX_PLAYS } from '../library/library.writer.js';
import { letterboxdFiles } from './letterboxd.export.js';
import { movaryCsvFiles } from './movary.export.js';

// The formats with a line per play, for an entry of the most plays one may hold. Both engines.
let ctx: TestContext;
let alice: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
});
afterEach(() => ctx.close());

it('exports an entry of the most plays allowed as that many lines, in Movary and Letterboxd', async () => {
  const movie = await createMovie(ctx, { title: 'Loop' });
  await ctx.library.write(alice.user.id, (lib) =>
    lib.addPlays([{ movieId: movie.id, watchedAt: '2024-01-02', plays: MAX_PLAYS, comment: 'again' }]),
  );
  // Produced in a few hundred chunks, not one per play: a chunk at a time, such an entry took two
  // minutes to zip (the adversarial API suite, FC_SEED=936387312, timed out on it).
  const owner = (await ctx.users.findByName('alice'))!;
  const count = async (chunks: AsyncIterable<string>) => {
    let n = 0;
    for await (const _ of chunks) n++;
    return n;
  };
  expect(await count(movaryCsvFiles({ library: ctx.library }, owner)[0]!.chunks)).toBeLessThan(1_000);
  const [diary] = await letterboxdFiles({ library: ctx.library }, owner);
  expect(diary!.name).toBe('diary.csv');
  expect(await count(diary!.chunks)).toBeLessThan(1_000);

  const get = (format: string) =>
    ctx.app.inject({ method: 'GET', url: `/api/users/alice/export?format=${format}`, headers: alice.auth });

  const movary = await get('movary');
  expect(movary.statusCode).toBe(200);
  const history = strFromU8(unzipSync(new Uint8Array(movary.rawPayload))['history.csv']!)
    .trimEnd()
    .split(/\r?\n/);
  expect(history).toHaveLength(MAX_PLAYS + 1);
  expect(history[1]).toContain('Loop');
  expect(history.at(-1)).toBe(history[1]);

  const letterboxd = unzipSync(new Uint8Array((await get('letterboxd')).rawPayload));
  const lines = strFromU8(letterboxd['diary.csv']!).trimEnd().split(/\r?\n/);
  expect(lines).toHaveLength(MAX_PLAYS + 1);
  // Every play of the entry is a line alike (the entry is no rewatch); the comment is its review, once.
  expect(lines[1]).toBe('2024-01-02,Loop,2001,,,,,2024-01-02');
  expect(lines.at(-1)).toBe(lines[1]);
  expect(strFromU8(letterboxd['reviews.csv']!).trimEnd().split(/\r?\n/)).toEqual([
    'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Review,Tags,Watched Date',
    '2024-01-02,Loop,2001,,,,again,,2024-01-02',
  ]);
}, 30_000);
