import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';

let ctx: TestContext;
let alice: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
  await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

// The harness's clock is fixed: its year is "this year".
const thisYear = () => ctx.clock.now().getUTCFullYear();

/** Alice's diary: 2021 (one movie, 2 plays, on a Thursday), this year (one play), one undated entry. */
async function seedAlice() {
  const ledger = await createMovie(ctx, { title: 'The Ledger', runtime: 120 });
  const comets = await createMovie(ctx, { title: 'Paper Comets', runtime: 60 });
  await ctx.library.write(alice.user.id, async (lib) => {
    await lib.addPlays([
      { movieId: ledger.id, watchedAt: '2021-03-04', plays: 2, comment: null },
      { movieId: comets.id, watchedAt: `${thisYear()}-01-01`, plays: 1, comment: null },
      { movieId: comets.id, watchedAt: null, plays: 3, comment: null },
    ]);
    await lib.setRatings([{ movieId: ledger.id, rating: 8 }]);
  });
  return { ledger, comets };
}

it('requires a signed-in user', async () => {
  const response = await new WebClient(ctx.app).get('/statistics');
  expect(response.statusCode).toBe(303);
  expect(response.headers.location).toBe('/login?next=%2Fstatistics');
});

it("shows the user's totals, charts with their tables and rankings; never another user's", async () => {
  await seedAlice();
  const response = await (await signedInClient(ctx.app, 'alice')).get('/statistics');
  expect(response.statusCode).toBe(200);
  const page = textOf(response.body);
  // Totals count every play, undated ones included: 6 plays, 2 movies, 2 × 120 + 4 × 60 minutes.
  expect(page).toMatch(/6 plays 2 movies 8 hours watched/);
  expect(page).toContain('4 stars average rating (8/10)');
  // The charts, each with its table: 2021's 2 plays, Thursday's 2 (4 March 2021), this year's Jan 1.
  expect(response.body.match(/<svg class="chart-svg"/g)).toHaveLength(4);
  expect(page).toMatch(/Plays per year .*2021: 2 plays .*Year Plays 2021 2 2022 0/);
  expect(page).toMatch(/Plays per weekday .*Thursday 2/);
  expect(page).toMatch(/January \d{4}: 1 play Jan/);
  expect(page).toMatch(/Your ratings .*4 stars 1/);
  expect(page).toContain('The Ledger');
  // The main navigation: its tabs in order (Ratings, Lists and Likes among them, issue 30), the search field, the
  // signed-in user with Settings.
  expect(page).toMatch(
    /Dashboard History Movies Watchlist Ratings Lists Likes Statistics Search movies Search Signed in as alice Settings Sign out/,
  );

  // Bob has played nothing: the empty state, none of Alice's figures.
  const bobs = textOf((await (await signedInClient(ctx.app, 'bob')).get('/statistics')).body);
  expect(bobs).toContain('Nothing to count yet');
  expect(bobs).not.toContain('The Ledger');
  expect(bobs).not.toContain('6 plays');
});

it('shows one year with ?year=, refuses a year that is not one (400)', async () => {
  await seedAlice();
  const client = await signedInClient(ctx.app, 'alice');
  const page = textOf((await client.get('/statistics?year=2021')).body);
  expect(page).toContain('Statistics of 2021');
  expect(page).toMatch(/2 plays 1 movie 4 hours watched/);
  expect(page).toMatch(/Plays per month in 2021 .*March 2021 2/);
  expect(page).not.toContain('Paper Comets');
  const empty = textOf((await client.get('/statistics?year=1999')).body);
  expect(empty).toContain('No plays in 1999');
  for (const bad of ['abc', '99', '12345', '2021-01']) {
    expect((await client.get(`/statistics?year=${bad}`)).statusCode).toBe(400);
  }
});

it("the dashboard shows this year's totals and a chart of the last 12 months", async () => {
  await seedAlice();
  const response = await (await signedInClient(ctx.app, 'alice')).get('/');
  const page = textOf(response.body);
  expect(page).toContain(`1 play in ${thisYear()}`);
  expect(page).toContain('6 plays in all');
  expect(page).toMatch(new RegExp(`Plays in the last 12 months .*January ${thisYear()} 1`));
});

it('the year in review: the first and the last movie by date, then by their place within the day', async () => {
  const [zebra, aardvark, mango, apple] = await Promise.all(
    ['Zebra Night', 'Aardvark Dawn', 'Mango Dusk', 'Apple Noon'].map((title) => createMovie(ctx, { title })),
  );
  // On 2 January Zebra Night was watched before Aardvark Dawn; on 9 May Mango Dusk after Apple Noon.
  await ctx.library.write(alice.user.id, (lib) =>
    lib.addPlays([
      { movieId: aardvark!.id, watchedAt: '2022-01-02', plays: 1, comment: null, position: 2 },
      { movieId: zebra!.id, watchedAt: '2022-01-02', plays: 1, comment: null, position: 1 },
      { movieId: mango!.id, watchedAt: '2022-05-09', plays: 1, comment: null, position: 2 },
      { movieId: apple!.id, watchedAt: '2022-05-09', plays: 1, comment: null, position: 1 },
    ]),
  );
  const page = textOf((await (await signedInClient(ctx.app, 'alice')).get('/users/alice/year/2022')).body);
  expect(page).toContain('The first movie Zebra Night');
  expect(page).toContain('The last movie Mango Dusk');
});

it('the year in review: its owner always; anyone else only once the profile is public', async () => {
  await seedAlice();
  const path = '/users/alice/year/2021';
  const mine = await (await signedInClient(ctx.app, 'alice')).get(path);
  expect(mine.statusCode).toBe(200);
  const page = textOf(mine.body);
  expect(page).toContain("alice's year in movies 2021");
  expect(page).toMatch(/1 movie 2 plays 4 hours March the busiest month \(2 plays\)/);
  expect(page).toContain('The first movie The Ledger');
  expect(page).toContain('The highest rated The Ledger');
  expect(page).toContain('Only you can see this page');
  expect(mine.body).toContain('alt="The Ledger"');

  // Private (the default): a stranger and Bob get the same 404 as for nobody.
  const stranger = new WebClient(ctx.app);
  const bob = await signedInClient(ctx.app, 'bob');
  for (const client of [stranger, bob]) {
    expect((await client.get(path)).statusCode).toBe(404);
    expect((await client.get('/users/nobody/year/2021')).statusCode).toBe(404);
  }
  // Public profile on, privacy 'users': shareable, read-only, without links into the app for a stranger.
  await ctx.users.update('alice', { publicProfile: true, privacy: 'users' });
  const shared = await stranger.get(path);
  expect(shared.statusCode).toBe(200);
  expect(textOf(shared.body)).toContain('The first movie The Ledger');
  expect(shared.body).not.toContain('href="/movies/');
  expect((await bob.get(path)).statusCode).toBe(200);
  // Public profile on but privacy private: not shareable.
  await ctx.users.update('alice', { privacy: 'private' });
  expect((await stranger.get(path)).statusCode).toBe(404);
  expect((await stranger.get('/users/alice/year/20x1')).statusCode).toBe(400);
});

it('shows the rewatches and the top tags of the diary (issue 30), all time and per year', async () => {
  const { ledger, comets } = await seedAlice();
  await ctx.library.write(alice.user.id, (lib) =>
    lib.logEntries([
      { movieId: ledger.id, watchedAt: '2021-05-01', plays: 1, comment: null, tags: ['Heist', 'rain'] },
      { movieId: comets.id, watchedAt: `${thisYear()}-02-01`, plays: 1, comment: null, tags: ['heist'] },
    ]),
  );
  const client = await signedInClient(ctx.app, 'alice');
  // Ledger 2021-05-01 (after 2021-03-04) and Comets in February (after January): two rewatches.
  const all = textOf((await client.get('/statistics')).body);
  expect(all).toMatch(/ 2 rewatches /);
  expect(all).toMatch(/Top tags Heist 2 entries rain 1 entry/);
  const y2021 = textOf((await client.get('/statistics?year=2021')).body);
  expect(y2021).toMatch(/ 1 rewatch /);
  expect(y2021).toMatch(/Top tags Heist 1 entry rain 1 entry/);
  // Bob's page: none of Alice's tags.
  await ctx.library.write((await ctx.users.findByName('bob'))!.id, (lib) =>
    lib.addPlays([{ movieId: ledger.id, watchedAt: '2021-03-04', plays: 1, comment: null }]),
  );
  const bobs = textOf((await (await signedInClient(ctx.app, 'bob')).get('/statistics')).body);
  expect(bobs).toMatch(/ 0 rewatches /);
  expect(bobs).toContain('Top tags Nothing to rank yet.');
  expect(bobs).not.toContain('Heist');
});

it("the year in review shows the year's likes and lists, each reader the lists they may read", async () => {
  const { ledger, comets } = await seedAlice();
  const year = thisYear();
  await ctx.library.write(alice.user.id, async (lib) => {
    await lib.likeMovies([comets.id]);
    for (const [name, visibility] of [
      ['Open list', 'public'],
      ['Members list', 'users'],
      ['Secret list', 'private'],
    ] as const) {
      const list = await lib.createList({ name, visibility });
      await lib.putListMovies(list.id, [{ movieId: ledger.id }, { movieId: comets.id }]);
    }
  });
  await ctx.users.update('alice', { publicProfile: true, privacy: 'users' });
  const path = `/users/alice/year/${year}`;
  const mine = await (await signedInClient(ctx.app, 'alice')).get(path);
  const page = textOf(mine.body);
  expect(page).toMatch(/Liked in \d{4} /);
  expect(mine.body).toMatch(
    /id="review-likes"[\s\S]*(alt|aria-label)="Paper Comets"[\s\S]*id="review-lists"/,
  );
  expect(page).toMatch(/Lists of \d{4} .*Secret list 2 movies .*Members list 2 movies .*Open list 2 movies/);
  expect(mine.body).toMatch(/<a href="\/lists\/\d+">Open list<\/a>/);
  expect(mine.body).toMatch(/id="review-lists"[\s\S]*(alt|aria-label)="The Ledger"/);

  const bobs = textOf((await (await signedInClient(ctx.app, 'bob')).get(path)).body);
  expect(bobs).toContain('Members list');
  expect(bobs).toContain('Open list');
  expect(bobs).not.toContain('Secret list');
  const stranger = await new WebClient(ctx.app).get(path);
  expect(textOf(stranger.body)).toContain('Open list');
  expect(textOf(stranger.body)).not.toContain('Members list');
  expect(stranger.body).toMatch(/<a href="\/u\/alice\/lists\/\d+">Open list<\/a>/);
  // Another year: none of this year's likes and lists.
  const y2021 = textOf((await (await signedInClient(ctx.app, 'alice')).get('/users/alice/year/2021')).body);
  expect(y2021).not.toContain('Liked in');
  expect(y2021).not.toContain('Open list');
});
