import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { exportFolders } from '../../../test/import-world.js';
import { signedInClient, textOf } from '../../../test/web-client.js';
import { parseHere } from '../imports/import-parse.js';
import { entryProblem, MAX_COMMENT_LENGTH, MAX_POSITION } from './library.rules.js';

// One set of limits for a play (library.rules.ts): the API, the web forms and the imports give a value
// the same answer, and the library's writer holds every other caller to it. The test clock's day is
// 2024-06-15 (test/harness.ts); Alice's time zone is UTC.
const TODAY = '2024-06-15';

interface Case {
  name: string;
  entry: { watchedAt?: string; plays?: number; comment?: string; position?: number };
  /** The reason's words, or null: accepted everywhere. */
  refused: string | null;
}

const CASES: Case[] = [
  {
    name: 'a date in the future (tomorrow)',
    entry: { watchedAt: '2024-06-16' },
    refused: 'the date is in the future',
  },
  { name: 'a date before 1870', entry: { watchedAt: '1869-12-31' }, refused: 'before the first movie' },
  { name: 'today', entry: { watchedAt: TODAY }, refused: null },
  { name: 'plays of 0', entry: { plays: 0 }, refused: 'plays must be a whole number' },
  {
    name: 'plays of 2^53-1',
    entry: { plays: Number.MAX_SAFE_INTEGER },
    refused: 'plays must be a whole number',
  },
  {
    name: 'a comment over the limit',
    entry: { comment: 'x'.repeat(MAX_COMMENT_LENGTH + 1) },
    refused: 'the comment is longer than 10,000 characters',
  },
  { name: 'a comment at the limit', entry: { comment: 'x'.repeat(MAX_COMMENT_LENGTH) }, refused: null },
  { name: 'position 0', entry: { position: 0 }, refused: null },
  { name: 'position 1001', entry: { position: 1001 }, refused: null },
  { name: 'position 2.5', entry: { position: 2.5 }, refused: null },
  {
    name: 'a position past the limit',
    entry: { position: MAX_POSITION * 2 },
    refused: 'the position must be a number',
  },
];

const values = (c: Case) => ({
  watchedAt: c.entry.watchedAt ?? '2024-01-01',
  plays: c.entry.plays ?? 1,
  comment: c.entry.comment ?? null,
  position: c.entry.position ?? 1,
});

describe('the rules of a play', () => {
  it.each(CASES)('decide $name', (c) => {
    const problem = entryProblem(values(c), TODAY);
    if (c.refused === null) expect(problem).toBeNull();
    else expect(problem).toContain(c.refused);
  });
});

describe('the same answer on the API, the web and the imports', () => {
  let ctx: TestContext;
  let alice: TestUser;
  let movie: { id: number; title: string };
  const folder = exportFolders('limits');

  beforeEach(async () => {
    ctx = await setupTestApp();
    alice = await createUser(ctx, { name: 'alice' });
    movie = await createMovie(ctx, { title: 'Heat', tmdb_id: 949 });
  });
  afterEach(() => ctx.close());

  const entries = () =>
    ctx.db
      .selectFrom('watch_dates')
      .select(['watched_at', 'plays', 'comment', 'position'])
      .where('user_id', '=', alice.user.id)
      .orderBy('watched_at')
      .execute();

  it.each(CASES)('$name', async (c) => {
    const v = values(c);
    // An entry to edit on the web (the form that has a position), and what every refusal leaves.
    await ctx.library.write(alice.user.id, (lib) =>
      lib.addPlays([{ movieId: movie.id, watchedAt: '2023-03-03', plays: 1, comment: null, position: 1 }]),
    );
    const before = await entries();

    // The API: a history POST of the one entry.
    const api = await ctx.app.inject({
      method: 'POST',
      url: '/api/users/alice/history/movies',
      headers: { authorization: `Bearer ${alice.token}` },
      payload: [{ serviceId: movie.id, ...v }],
    });
    expect(api.statusCode, api.body).toBe(c.refused === null ? 204 : 400);
    if (c.refused !== null) {
      expect(api.json().error).toMatch(/^Invalid/);
    } else {
      // Taken back, so that the web's edit can move the older entry onto that date.
      await ctx.library.write(alice.user.id, (lib) =>
        lib.deleteDates([{ movieId: movie.id, dates: [v.watchedAt] }]),
      );
    }
    expect(await entries()).toEqual(before);

    // The web: the movie page's entry form (date, plays, comment and position).
    const web = await signedInClient(ctx.app, 'alice');
    const page = `/movies/${movie.id}`;
    const edited = await web.submit(page, `/movies/${movie.id}/entries/edit`, {
      from: '2023-03-03',
      date: v.watchedAt,
      plays: String(v.plays),
      comment: v.comment ?? '',
      position: String(v.position),
    });
    if (c.refused === null) {
      expect(edited.statusCode).toBe(303);
      expect(await entries()).toEqual([{ watched_at: v.watchedAt, ...v }].map(({ watchedAt: _, ...e }) => e));
    } else {
      expect(edited.statusCode).toBe(400);
      expect(textOf(edited.body).toLowerCase()).toContain(c.refused);
      expect(await entries()).toEqual(before);
    }

    // The imports: a cinelog file with the entry (read as an upload is checked, before any job).
    const path = folder({
      'cinelog.json': JSON.stringify({
        format: 'cinelog',
        version: 1,
        history: [{ movie: { tmdbId: 949, title: 'Heat' }, ...v }],
        watchlist: [],
        ratings: [],
      }),
    });
    const read = await parseHere({ format: 'cinelog', path, context: { timezone: 'UTC', today: TODAY } });
    if (c.refused === null) {
      expect(read.unreadable).toEqual([]);
      expect(read.rows).toHaveLength(1);
    } else {
      expect(read.rows).toEqual([]);
      expect(read.unreadable.map((row) => row.reason).join()).toContain(c.refused);
    }
  });

  it('holds every caller of the library to them: a write past the rules is refused whole', async () => {
    const other = await createMovie(ctx, { title: 'Ronin' });
    const write = ctx.library.write(alice.user.id, (lib) =>
      lib.addPlays([
        { movieId: movie.id, watchedAt: '2024-01-01', plays: 1, comment: null },
        { movieId: other.id, watchedAt: '2024-06-16', plays: 1, comment: null },
      ]),
    );
    await expect(write).rejects.toThrow(/the date is in the future \(none of the batch was applied\)/);
    expect(await entries()).toEqual([]);
  });

  it("counts today in the owner's time zone: ahead of UTC, tomorrow's UTC date is today", async () => {
    // 2024-06-15T12:00Z is already 2024-06-16 in Kiritimati (UTC+14).
    await ctx.users.update('alice', { timezone: 'Pacific/Kiritimati' });
    await ctx.library.write(alice.user.id, (lib) =>
      lib.addPlays([{ movieId: movie.id, watchedAt: '2024-06-16', plays: 1, comment: null }]),
    );
    await ctx.users.update('alice', { timezone: 'Pacific/Honolulu' }); // still 2024-06-15, 02:00
    await expect(
      ctx.library.write(alice.user.id, (lib) =>
        lib.addPlays([{ movieId: movie.id, watchedAt: '2024-06-16', plays: 1, comment: null }]),
      ),
    ).rejects.toThrow(/in the future/);
    expect((await entries()).map((e) => e.watched_at)).toEqual(['2024-06-16']);
  });
});
