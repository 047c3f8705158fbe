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
import { letterboxdCsv } from './letterboxd.export.js';
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
  expect(await count(letterboxdCsv({ library: ctx.library }, owner).chunks)).toBeLessThan(1_000);

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

  const letterboxd = (await get('letterboxd')).body.trimEnd().split(/\r?\n/);
  expect(letterboxd).toHaveLength(MAX_PLAYS + 1);
  // The first play is no rewatch and carries the comment; every other one is a rewatch without it.
  expect(letterboxd[1]).toMatch(/,false,again$/);
  expect(letterboxd[2]).toMatch(/,true,$/);
  expect(letterboxd.at(-1)).toBe(letterboxd[2]);
}, 30_000);
