import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../test/web-client.js';

let ctx: TestContext;
let alice: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
  await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

const owner = (user: TestUser) => ({ id: user.user.id, watchlistAutoRemove: false });
// The harness's clock is fixed: its year is "this year".
const thisYear = () => ctx.clock.now().getUTCFullYear();

it('requires a signed-in user', async () => {
  const response = await new WebClient(ctx.app).get('/statistics');
  expect(response.statusCode).toBe(303);
  expect(response.headers.location).toBe('/login?next=%2Fstatistics');
});

it("shows the user's totals, this year's and each year's plays; never another user's", async () => {
  const movie = await createMovie(ctx, { runtime: 120 });
  const other = await createMovie(ctx, { runtime: 60 });
  await ctx.library.write(owner(alice), (lib) =>
    lib.addPlays([
      { movieId: movie.id, watchedAt: '2021-03-04', plays: 2, comment: null },
      { movieId: other.id, watchedAt: `${thisYear()}-01-01`, plays: 1, comment: null },
      { movieId: other.id, watchedAt: null, plays: 3, comment: null },
    ]),
  );
  const page = textOf((await (await signedInClient(ctx.app, 'alice')).get('/statistics')).body);
  expect(page).toContain('6 plays in all');
  expect(page).toContain('2 movies in all');
  expect(page).toContain(`8 hours in all`); // 2 × 120 + 4 × 60 minutes
  expect(page).toContain(`1 play in ${thisYear()}`);
  expect(page).toMatch(/2021\s+2\s+1\s+4/); // year, plays, movies, hours
  expect(page).toContain('3 plays have no date');

  // Bob has played nothing: the empty state, none of Alice's figures.
  // The main navigation: the six links the issue names, in order, and the search field.
  expect(page).toMatch(/Dashboard History Movies Watchlist Statistics Settings Search movies/);
  const bobs = textOf((await (await signedInClient(ctx.app, 'bob')).get('/statistics')).body);
  expect(bobs).toContain('Nothing to count yet');
  expect(bobs).not.toContain('plays in all');
});
