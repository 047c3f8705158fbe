import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';

// The diary (/history), its calendar and the log form's rating, rewatch and tags, over HTTP on both
// engines. The test clock's today is 2024-06-15.
let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;
let heat: { id: number };
let ronin: { id: number };

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
  bob = await createUser(ctx, { name: 'bob' });
  heat = await createMovie(ctx, { title: 'Heat' });
  ronin = await createMovie(ctx, { title: 'Ronin' });
  await ctx.library.write(alice.user.id, (lib) =>
    lib.logEntries([
      { movieId: heat.id, watchedAt: '2023-12-30', plays: 1, comment: null, rating: 6, tags: ['Cinema'] },
      {
        movieId: heat.id,
        watchedAt: '2024-06-14',
        plays: 1,
        comment: 'Again.',
        rating: 9,
        tags: ['cinema', 'with Sam'],
      },
      { movieId: ronin.id, watchedAt: '2024-06-02', plays: 1, comment: null, rating: 7 },
    ]),
  );
  await ctx.library.write(bob.user.id, (lib) =>
    lib.logEntries([
      { movieId: ronin.id, watchedAt: '2024-06-03', plays: 1, comment: 'Bob was here.', tags: ['bobs'] },
    ]),
  );
});
afterEach(() => ctx.close());

const diaryOf = async (user: TestUser) =>
  (await ctx.library.list('diary', user.user, {})).items.map((entry) => ({
    movie: entry.movie.title,
    watchedAt: entry.watchedAt,
    rating: entry.rating,
    rewatch: entry.rewatch,
    tags: entry.tags,
  }));

describe('the diary page', () => {
  it('requires a signed-in user; the log form signed out changes nothing', async () => {
    const stranger = new WebClient(ctx.app);
    for (const path of ['/history?tag=cinema', '/history/calendar?month=2024-06']) {
      const response = await stranger.get(path);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    await stranger.get('/login');
    const posted = await stranger.post('/log', { movieId: String(ronin.id), date: '2024-06-15', tags: 'x' });
    expect(posted.headers.location).toBe('/login');
    expect(await diaryOf(alice)).toHaveLength(3);
  });

  it('groups the entries by month, each with its own stars, rewatch mark and tags', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const html = (await client.get('/history')).body;
    const text = textOf(html);
    expect(text.indexOf('June 2024 2 entries')).toBeGreaterThan(-1);
    expect(text.indexOf('December 2023 1 entry')).toBeGreaterThan(text.indexOf('June 2024'));
    // Each entry's own rating: 4½ stars in June, 3 stars in December (never today's copied back).
    expect(html).toContain('aria-label="Rated 4½ stars"');
    expect(html).toContain('aria-label="Rated 3 stars"');
    // The second Heat is a rewatch; the first is not.
    expect(html.match(/class="visually-hidden">Rewatch</g)).toHaveLength(1);
    expect(html).toContain('<a class="tag" href="/history?tag=with+Sam">with Sam</a>');
    expect(html).toContain('href="/history/calendar?month=2024-06"');
    expect(text).toContain('Again.');
  });

  it('filters by year, rating, tag and rewatch, and keeps the filters in the address', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const titlesOf = async (path: string) => {
      const response = await client.get(path);
      expect(response.statusCode).toBe(200);
      return [...response.body.matchAll(/class="entry-title"><a [^>]*>([^<]+)<\/a>/g)].map((m) => m[1]);
    };
    expect(await titlesOf('/history?year=2023')).toEqual(['Heat']);
    expect(await titlesOf('/history?year=2024&month=6')).toEqual(['Heat', 'Ronin']);
    expect(await titlesOf('/history?year=2024&month=6&day=2')).toEqual(['Ronin']);
    expect(await titlesOf('/history?rating=7')).toEqual(['Ronin']);
    // Tags are case-insensitive.
    expect(await titlesOf('/history?tag=CINEMA')).toEqual(['Heat', 'Heat']);
    expect(await titlesOf('/history?tag=cinema&rewatch=yes')).toEqual(['Heat']);
    expect(await titlesOf('/history?rewatch=no')).toEqual(['Ronin', 'Heat']);
    expect(await titlesOf('/history?rewatch=no&order=asc')).toEqual(['Heat', 'Ronin']);
    expect(await titlesOf('/history?q=ron')).toEqual(['Ronin']);
    const filtered = await client.get('/history?tag=cinema&rewatch=yes');
    expect(textOf(filtered.body)).toContain('Tagged “cinema” · Rewatches Clear filters');
    expect(filtered.body).toContain('<option value="yes" selected>Rewatches</option>');
    // The form's empty fields are left out of the address.
    const form = await client.get('/history?q=&year=2024&month=&rating=&tag=cinema&rewatch=&order=desc');
    expect(form.statusCode).toBe(303);
    expect(form.headers.location).toBe('/history?year=2024&tag=cinema');
    // Nothing matches: what to do next.
    const none = textOf((await client.get('/history?tag=horror')).body);
    expect(none).toContain('No entry matches these filters');
    expect(none).toContain('Clear filters');
  });

  it("shows the user's own diary and tags only, never another user's", async () => {
    const client = await signedInClient(ctx.app, 'bob');
    const mine = (await client.get('/history')).body;
    expect(textOf(mine)).toContain('Bob was here.');
    expect(textOf(mine)).not.toContain('Heat');
    // Alice's tag is not Bob's: nothing, and it is not offered.
    expect(mine).not.toContain('<option value="Cinema">');
    expect(textOf((await client.get('/history?tag=cinema')).body)).toContain(
      'No entry matches these filters',
    );
    const calendar = textOf((await client.get('/history/calendar?month=2024-06')).body);
    expect(calendar).toContain('Monday 3 June 2024: 1 film');
    expect(calendar).not.toContain('Friday 14 June 2024: 1 film');
  });

  it.each([
    '/history?year=abc',
    '/history?year=99999',
    '/history?month=13&year=2024',
    '/history?month=6',
    '/history?day=2&year=2024',
    '/history?rating=11',
    '/history?rating=0',
    '/history?rewatch=maybe',
    `/history?tag=${'x'.repeat(101)}`,
    '/history?order=sideways',
    '/history/calendar?month=2024-13',
    '/history/calendar?month=June',
  ])('answers the bad filter %s with a 400 page', async (path) => {
    const client = await signedInClient(ctx.app, 'alice');
    const response = await client.get(path);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('text/html');
  });
});

describe('the calendar', () => {
  it('lays the month out from Monday, each day with its count and a link to its diary', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const html = (await client.get('/history/calendar?month=2024-06')).body;
    const text = textOf(html);
    expect(text).toContain('June 2024 2 entries');
    expect(text).toContain('Friday 14 June 2024: 1 film');
    expect(html).toContain('href="/history?year=2024&amp;month=6&amp;day=14"');
    expect(html).toContain('href="/history/calendar?month=2024-05"');
    // No month after this one.
    expect(html).not.toContain('href="/history/calendar?month=2024-07"');
    // This month without one asked; an empty month says what to do.
    expect(textOf((await client.get('/history/calendar')).body)).toContain('June 2024');
    expect(textOf((await client.get('/history/calendar?month=2024-01')).body)).toContain(
      'No plays in January 2024',
    );
  });
});

describe('the log form', () => {
  it('pre-ticks the rewatch box when an earlier entry exists, and offers the user’s tags', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const again = (await client.get(`/log?movieId=${heat.id}`)).body;
    expect(again).toMatch(/<input type="checkbox" name="rewatch" checked/);
    expect(again).toContain('<option value="Cinema"></option>');
    expect(again).toContain('<span class="visually-hidden">3½ stars</span>');
    const fresh = await createMovie(ctx, { title: 'Thief' });
    expect((await client.get(`/log?movieId=${fresh.id}`)).body).toMatch(
      /<input type="checkbox" name="rewatch" {2}aria/,
    );
  });

  it('writes the rating, the rewatch flag and the tags of the entry', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const thief = await createMovie(ctx, { title: 'Thief' });
    // Ticked although it was not shown ticked: the user's word.
    const logged = await client.submit(`/log?movieId=${thief.id}`, '/log', {
      movieId: String(thief.id),
      date: '2024-06-10',
      plays: '1',
      rating: '7',
      rewatch: 'on',
      rewatchShown: 'off',
      tags: 'noir, Cinema ,',
    });
    expect(logged.statusCode).toBe(303);
    // Left as shown (ticked): derived, so a rewatch; the tags join the entry's.
    await client.submit(`/log?movieId=${heat.id}`, '/log', {
      movieId: String(heat.id),
      date: '2024-06-15',
      rating: '',
      rewatch: 'on',
      rewatchShown: 'on',
      tags: 'home',
    });
    // Unticked although shown ticked: not a rewatch.
    await client.submit(`/log?movieId=${ronin.id}`, '/log', {
      movieId: String(ronin.id),
      date: '2024-06-12',
      rewatchShown: 'on',
    });
    const diary = await diaryOf(alice);
    expect(diary.slice(0, 4)).toEqual([
      { movie: 'Heat', watchedAt: '2024-06-15', rating: null, rewatch: true, tags: ['home'] },
      { movie: 'Heat', watchedAt: '2024-06-14', rating: 9, rewatch: true, tags: ['Cinema', 'with Sam'] },
      { movie: 'Ronin', watchedAt: '2024-06-12', rating: null, rewatch: false, tags: [] },
      { movie: 'Thief', watchedAt: '2024-06-10', rating: 7, rewatch: true, tags: ['Cinema', 'noir'] },
    ]);
    // The tag keeps its first spelling ("Cinema"), as the API's diary does.
    expect(await ctx.library.tags(alice.user)).toContainEqual({ name: 'Cinema', count: 3 });
  });

  it('refuses bad tags with a 400 and the form shown again, writing nothing', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const before = await diaryOf(alice);
    const tooLong = await client.submit(`/log?movieId=${ronin.id}`, '/log', {
      movieId: String(ronin.id),
      date: '2024-06-15',
      rating: '8',
      tags: `ok, ${'x'.repeat(101)}`,
      comment: 'Kept for the retry.',
    });
    expect(tooLong.statusCode).toBe(400);
    expect(textOf(tooLong.body)).toContain('A tag is at most 100 characters');
    expect(tooLong.body).toContain('Kept for the retry.');
    expect(tooLong.body).toContain('name="rating" value="8" checked');
    const tooMany = await client.submit(`/log?movieId=${ronin.id}`, '/log', {
      movieId: String(ronin.id),
      date: '2024-06-15',
      tags: Array.from({ length: 51 }, (_, i) => `t${i}`).join(','),
    });
    expect(tooMany.statusCode).toBe(400);
    expect(textOf(tooMany.body)).toContain('An entry has at most 50 tags, not 51');
    // 49 new tags on an entry that has 2 already: 51 on the entry, refused as a whole.
    const merged = await client.submit(`/log?movieId=${heat.id}`, '/log', {
      movieId: String(heat.id),
      date: '2024-06-14',
      tags: Array.from({ length: 49 }, (_, i) => `t${i}`).join(','),
    });
    expect(merged.statusCode).toBe(400);
    expect(await diaryOf(alice)).toEqual(before);
    expect((await ctx.library.list('history', alice.user, {})).items.map((entry) => entry.plays)).toEqual([
      1, 1, 1,
    ]);
  });
});
