// Benchmark datasets. The users, the API token and the bench user's webhook go through the app's own
// services; everything else is inserted with Kysely in bulk, in one transaction, so that seeding takes
// seconds even for 100k entries. Deterministic: the same seed gives the same rows on every engine.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createApiTokensService } from '../dist/modules/auth/api-tokens.service.js';
import { endSignInsOnChange } from '../dist/modules/auth/credentials.js';
import { createSessionsService } from '../dist/modules/auth/sessions.service.js';
import { createWebhooksService } from '../dist/modules/scrobble/webhooks.service.js';
import { createUsersService } from '../dist/modules/users/users.service.js';
import { systemClock } from '../dist/shared/clock.js';

/** Ten years of history: 2015-06-01 to 2025-05-31. */
const FIRST_DAY = Date.UTC(2015, 5, 1);
const DAYS = 3653;
const DAY_MS = 86_400_000;
const PASSWORD = 'benchmark password';

/** mulberry32: a small seeded generator, so both engines get the same dataset. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (rand, list) => list[Math.floor(rand() * list.length)];

function shuffled(rand, list) {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export const dayString = (day) => new Date(FIRST_DAY + day * DAY_MS).toISOString().slice(0, 10);

/** Multi-row inserts, chunked to stay under both engines' bound-parameter limits. */
async function insertRows(db, table, rows) {
  if (rows.length === 0) return;
  const perChunk = Math.max(1, Math.floor(12_000 / Object.keys(rows[0]).length));
  for (let i = 0; i < rows.length; i += perChunk) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + perChunk))
      .execute();
  }
}

const WORDS = (
  'Silent Harbor Crimson Night Last Train Paper Moon Glass River Winter Garden Broken Signal Hidden City ' +
  'Golden Hour Distant Shore Iron Empire Little Secrets Midnight Express Wild Heart Lost Horizon Electric Dreams'
).split(' ');
const LANGUAGES = ['en', 'en', 'en', 'en', 'fr', 'de', 'ja', 'ko', 'es', 'it', 'sv'];
const GENRES = [
  [28, 'Action'],
  [12, 'Adventure'],
  [16, 'Animation'],
  [35, 'Comedy'],
  [80, 'Crime'],
  [99, 'Documentary'],
  [18, 'Drama'],
  [10751, 'Family'],
  [14, 'Fantasy'],
  [36, 'History'],
  [27, 'Horror'],
  [10402, 'Music'],
  [9648, 'Mystery'],
  [10749, 'Romance'],
  [878, 'Science Fiction'],
  [53, 'Thriller'],
  [10752, 'War'],
  [37, 'Western'],
];
const SENTENCE =
  'A quiet story about people who find out more about each other than they wanted to, told over one long summer. ';

/** `count` movies with realistic field lengths; TMDB ids from `firstTmdbId` on. Returns their ids in order. */
async function insertMovies(trx, rand, count, firstTmdbId) {
  const now = new Date().toISOString();
  const rows = [];
  for (let i = 0; i < count; i++) {
    const title = `${pick(rand, WORDS)} ${pick(rand, WORDS)}${rand() < 0.3 ? ` ${pick(rand, WORDS)}` : ''}`;
    const year = 1950 + Math.floor(rand() * 75);
    rows.push({
      title,
      original_title: rand() < 0.8 ? title : `${title} (original)`,
      release_date: `${year}-${String(1 + Math.floor(rand() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`,
      tagline: rand() < 0.7 ? `${pick(rand, WORDS)} is only the beginning.` : null,
      overview: SENTENCE.repeat(1 + Math.floor(rand() * 4)).trim(),
      original_language: pick(rand, LANGUAGES),
      runtime: 80 + Math.floor(rand() * 90),
      poster_path: `/${randomUUID().replaceAll('-', '').slice(0, 27)}.jpg`,
      tmdb_id: firstTmdbId + i,
      trakt_id: rand() < 0.9 ? 500_000 + firstTmdbId + i : null,
      imdb_id: `tt${String(1_000_000 + firstTmdbId + i)}`,
      letterboxd_id: rand() < 0.5 ? title.toLowerCase().replaceAll(' ', '-') : null,
      tmdb_vote_average: Math.round(rand() * 90) / 10,
      tmdb_vote_count: Math.floor(rand() * 30_000),
      imdb_rating_average: rand() < 0.8 ? Math.round(rand() * 90) / 10 : null,
      imdb_rating_count: rand() < 0.8 ? Math.floor(rand() * 2_000_000) : null,
      created_at: now,
      updated_at: rand() < 0.5 ? now : null,
    });
  }
  await insertRows(trx, 'movies', rows);
  const found = await trx
    .selectFrom('movies')
    .select(['id', 'tmdb_id'])
    .where('tmdb_id', '>=', firstTmdbId)
    .where('tmdb_id', '<', firstTmdbId + count)
    .execute();
  const ids = new Array(count);
  for (const row of found) ids[row.tmdb_id - firstTmdbId] = row.id;
  return ids;
}

async function insertGenres(trx, rand, movieIds) {
  await insertRows(
    trx,
    'genres',
    GENRES.map(([tmdbId, name]) => ({ tmdb_id: tmdbId, name })),
  );
  const genreIds = (await trx.selectFrom('genres').select('id').execute()).map((g) => g.id);
  const rows = [];
  for (const movieId of movieIds) {
    const chosen = shuffled(rand, genreIds).slice(0, 1 + Math.floor(rand() * 3));
    chosen.forEach((genreId, position) => {
      rows.push({ movie_id: movieId, genre_id: genreId, position });
    });
  }
  await insertRows(trx, 'movie_genres', rows);
}

const COUNTRIES = [
  ['US', 'United States of America'],
  ['US', 'United States of America'],
  ['GB', 'United Kingdom'],
  ['FR', 'France'],
  ['DE', 'Germany'],
  ['JP', 'Japan'],
  ['KR', 'South Korea'],
  ['ES', 'Spain'],
  ['IT', 'Italy'],
  ['SE', 'Sweden'],
  ['CA', 'Canada'],
];
const LANGUAGE_NAMES = {
  en: 'English',
  fr: 'French',
  de: 'German',
  ja: 'Japanese',
  ko: 'Korean',
  es: 'Spanish',
  it: 'Italian',
  sv: 'Swedish',
};

/**
 * What a movie's details add (issue 20's statistics read them): 1-2 production countries, 1-2 spoken
 * languages, one or two directors and a cast of 8-15 from a pool of `people` (so that people recur
 * across movies, a few of them often), as `cinelog` stores TMDB's credits. Its own generator, so the
 * rest of a dataset is the same with or without credits.
 */
export async function insertCredits(
  trx,
  movieIds,
  { people = Math.max(500, movieIds.length), seed = 7 } = {},
) {
  const rand = seededRandom(seed);
  const personRows = Array.from({ length: people }, (_, i) => ({
    tmdb_id: 2_000_000 + i,
    name: `${pick(rand, WORDS)} ${pick(rand, WORDS)}son`,
    profile_path: rand() < 0.7 ? `/${randomUUID().replaceAll('-', '').slice(0, 27)}.jpg` : null,
    known_for_department: rand() < 0.1 ? 'Directing' : 'Acting',
    updated_at: new Date().toISOString(),
  }));
  await insertRows(trx, 'people', personRows);
  const personIds = (await trx.selectFrom('people').select('id').orderBy('tmdb_id').execute()).map(
    (p) => p.id,
  );
  const directors = personIds.slice(0, Math.ceil(people / 10));
  const actors = personIds.slice(directors.length);
  /** Skewed: a few people are in many movies. */
  const someone = (pool) => pool[Math.floor(pool.length * rand() ** 2)];
  await insertRows(
    trx,
    'countries',
    [...new Map(COUNTRIES).entries()].map(([code, name]) => ({ code, name })),
  );
  await insertRows(
    trx,
    'languages',
    Object.entries(LANGUAGE_NAMES).map(([code, name]) => ({ code, english_name: name, name })),
  );
  const cast = [];
  const crew = [];
  const countries = [];
  const languages = [];
  /** One or, a few times in ten, two distinct values. */
  const oneOrTwo = (next, often) => [...new Set([next(), ...(rand() < often ? [next()] : [])])];
  const spoken = Object.keys(LANGUAGE_NAMES);
  for (const movieId of movieIds) {
    for (const [position, code] of oneOrTwo(() => pick(rand, COUNTRIES)[0], 0.3).entries())
      countries.push({ movie_id: movieId, country_code: code, position });
    for (const [position, code] of oneOrTwo(() => pick(rand, spoken), 0.3).entries())
      languages.push({ movie_id: movieId, language_code: code, position });
    for (const [position, personId] of oneOrTwo(() => someone(directors), 0.1).entries())
      crew.push({
        movie_id: movieId,
        person_id: personId,
        department: 'Directing',
        job: 'Director',
        position,
      });
    const size = 10 + Math.floor(rand() * 30);
    const billed = new Set();
    for (let order = 0; order < size; order++) {
      const personId = someone(actors);
      cast.push({
        movie_id: movieId,
        person_id: personId,
        character: `Role ${order + 1}`,
        cast_order: order,
        first_place: billed.has(personId) ? 0 : 1,
      });
      billed.add(personId);
    }
  }
  await insertRows(trx, 'movie_countries', countries);
  await insertRows(trx, 'movie_languages', languages);
  await insertRows(trx, 'movie_crew', crew);
  await insertRows(trx, 'movie_cast', cast);
  return { people, castRows: cast.length, crewRows: crew.length };
}

/**
 * `entries` dated watch entries of `movieIds` (each at least once when there are enough entries, then
 * favourites more often: `skew` > 1), one per (movie, date), spread over ten years; plus `nullDates`
 * entries with an unknown date. Positions order the movies of one day.
 */
export function historyRows({ userId, movieIds, entries, nullDates = 0, skew = 1.3, rand }) {
  const taken = new Set();
  const dated = [];
  const tryAdd = (movieId, day) => {
    const key = movieId * 8192 + day;
    if (taken.has(key)) return false;
    taken.add(key);
    dated.push([movieId, day]);
    return true;
  };
  if (entries >= movieIds.length) {
    for (const movieId of movieIds) while (!tryAdd(movieId, Math.floor(rand() * DAYS))) {}
  }
  for (let attempts = 0; dated.length < entries; attempts++) {
    if (attempts > entries * 100) throw new Error(`cannot place ${entries} entries`);
    tryAdd(movieIds[Math.floor(movieIds.length * rand() ** skew)], Math.floor(rand() * DAYS));
  }
  dated.sort((a, b) => a[1] - b[1]);
  const perDay = new Map();
  const rows = dated.map(([movieId, day]) => {
    const position = (perDay.get(day) ?? 0) + 1;
    perDay.set(day, position);
    const date = dayString(day);
    const stamp = `${date}T21:${String(position % 60).padStart(2, '0')}:00.000Z`;
    return {
      user_id: userId,
      movie_id: movieId,
      watched_at: date,
      plays: rand() < 0.05 ? 2 : 1,
      comment: rand() < 0.05 ? 'Watched with friends, better the second time.' : null,
      position,
      created_at: stamp,
      updated_at: stamp,
    };
  });
  const now = new Date().toISOString();
  for (const movieId of movieIds.slice(0, nullDates)) {
    rows.push({
      user_id: userId,
      movie_id: movieId,
      watched_at: null,
      plays: 1,
      comment: null,
      position: 1,
      created_at: now,
      updated_at: now,
    });
  }
  return rows;
}

function watchlistRows(rand, userId, movieIds) {
  const start = Date.UTC(2022, 0, 1);
  return movieIds.map((movieId) => ({
    user_id: userId,
    movie_id: movieId,
    added_at: new Date(start + Math.floor(rand() * 3 * 365 * DAY_MS)).toISOString(),
  }));
}

function ratingRows(rand, userId, movieIds) {
  const now = new Date().toISOString();
  return movieIds.map((movieId) => ({
    user_id: userId,
    movie_id: movieId,
    rating: 1 + Math.floor(rand() * 10),
    created_at: now,
    updated_at: now,
  }));
}

/** A user through the app's service (password hashed as in production) and a never-expiring API token. */
export async function userWithToken(db, name) {
  const users = createUsersService({
    credentials: endSignInsOnChange,
    db,
    clock: systemClock,
    defaultTimezone: 'UTC',
  });
  const user = await users.create({ name, email: `${name}@example.test`, password: PASSWORD });
  const { value: token } = await createApiTokensService({ db, clock: systemClock }).create(
    user.id,
    'bench',
    'never',
  );
  // A signed-in browser's session, for the web pages' scenarios.
  const { value: session } = await createSessionsService({ db, clock: systemClock }).start(user.id, true);
  return { id: user.id, name, token, session };
}

/** Copies of a user row under new names (same password hash: hashing 50 passwords would take seconds). */
async function copyUser(trx, templateId, names) {
  const { id: _id, ...template } = await trx
    .selectFrom('users')
    .selectAll()
    .where('id', '=', templateId)
    .executeTakeFirstOrThrow();
  await insertRows(
    trx,
    'users',
    names.map((name) => ({ ...template, name, email: `${name}@example.test` })),
  );
  const rows = await trx.selectFrom('users').select(['id', 'name']).execute();
  const byName = new Map(rows.map((r) => [r.name, r.id]));
  return names.map((name) => byName.get(name));
}

export const MAIN_DATASET = {
  movies: 3000,
  benchMovies: 2000,
  benchEntries: 20_000,
  benchNullDates: 40,
  benchWatchlist: 300,
  benchRatings: 500,
  otherUsers: 50,
  otherEntries: [50, 200],
};

/**
 * The main dataset: user `bench` with 20,000 dated entries over 2,000 movies in ten years (and a few
 * undated ones), a watchlist of 300 unwatched movies, 500 ratings; 50 other users with 50-200 entries
 * each; a Plex webhook for `bench`.
 */
export async function seedMain(db) {
  const d = MAIN_DATASET;
  const rand = seededRandom(20_000);
  const bench = await userWithToken(db, 'bench');
  const webhook = await createWebhooksService({ db, clock: systemClock, appUrl: 'http://bench' }).create(
    bench.id,
    'plex',
  );
  const counts = {};
  const data = await db.transaction().execute(async (trx) => {
    const movieIds = await insertMovies(trx, rand, d.movies, 100_000);
    await insertGenres(trx, rand, movieIds);
    const order = shuffled(rand, movieIds);
    const watched = order.slice(0, d.benchMovies);
    const unwatched = order.slice(d.benchMovies);
    const history = historyRows({
      userId: bench.id,
      movieIds: watched,
      entries: d.benchEntries,
      nullDates: d.benchNullDates,
      rand,
    });
    const watchlist = watchlistRows(rand, bench.id, unwatched.slice(0, d.benchWatchlist));
    const ratings = ratingRows(rand, bench.id, shuffled(rand, watched).slice(0, d.benchRatings));
    const otherNames = Array.from(
      { length: d.otherUsers },
      (_, i) => `viewer${String(i + 1).padStart(2, '0')}`,
    );
    const otherIds = await copyUser(trx, bench.id, otherNames);
    let otherEntries = 0;
    for (const userId of otherIds) {
      const [low, high] = d.otherEntries;
      const entries = low + Math.floor(rand() * (high - low + 1));
      const mine = shuffled(rand, movieIds).slice(0, Math.ceil(entries * 0.7));
      const rows = historyRows({ userId, movieIds: mine, entries, nullDates: 2, skew: 1.5, rand });
      otherEntries += rows.length;
      history.push(...rows);
      const seen = new Set(mine);
      const notMine = movieIds.filter((id) => !seen.has(id));
      watchlist.push(
        ...watchlistRows(rand, userId, shuffled(rand, notMine).slice(0, Math.floor(rand() * 30))),
      );
      ratings.push(...ratingRows(rand, userId, mine.slice(0, Math.floor(rand() * 40))));
    }
    await insertRows(trx, 'watch_dates', history);
    await insertRows(trx, 'watchlist', watchlist);
    await insertRows(trx, 'ratings', ratings);
    Object.assign(counts, {
      movies: movieIds.length,
      users: 1 + otherIds.length,
      benchEntries: d.benchEntries + d.benchNullDates,
      benchDatedEntries: d.benchEntries,
      benchNullDateEntries: d.benchNullDates,
      benchMovies: watched.length,
      benchWatchlist: d.benchWatchlist,
      benchRatings: d.benchRatings,
      otherEntries,
      watchDatesRows: history.length,
      watchlistRows: watchlist.length,
      ratingsRows: ratings.length,
    });
    // The credits, countries and languages the statistics read (their own generator: the rows above
    // are the same as before they were added).
    Object.assign(counts, await insertCredits(trx, movieIds));
    const knownMovie = await trx
      .selectFrom('movies')
      .select(['id', 'tmdb_id'])
      .where('id', '=', unwatched[unwatched.length - 1])
      .executeTakeFirstOrThrow();
    return { watched, knownMovie };
  });
  return {
    bench,
    counts,
    watchedMovieIds: data.watched,
    knownMovie: { id: data.knownMovie.id, tmdbId: data.knownMovie.tmdb_id },
    plexWebhookPath: new URL(webhook.url).pathname,
  };
}

/**
 * Extra Plex webhooks for the scrobble scenario. A webhook URL takes 120 reports a minute (then 429), so
 * the load is spread over as many URLs as the run needs, at most `perUrl` reports each; the first is
 * `bench`'s own. Each belongs to a copy of `bench` (a user has one Plex webhook).
 */
export function scrobbleWebhookPool(db, { benchUserId, benchPath, perUrl }) {
  const paths = [benchPath];
  const benchUuid = benchPath.slice(benchPath.lastIndexOf('/') + 1);
  return {
    perUrl,
    get size() {
      return paths.length;
    },
    /** The URLs' paths so far (the bench's Lua cycles through them as pathFor does). */
    get paths() {
      return [...paths];
    },
    pathFor: (k) => paths[Math.floor(k / perUrl) % paths.length],
    /** Makes sure there are at least `count` URLs; returns the user ids of the added ones. */
    async ensure(count) {
      if (paths.length >= count) return;
      await db.transaction().execute(async (trx) => {
        const names = [];
        for (let i = paths.length; i < count; i++) names.push(`scrobbler${String(i).padStart(5, '0')}`);
        const userIds = await copyUser(trx, benchUserId, names);
        const { id: _id, ...template } = await trx
          .selectFrom('webhooks')
          .selectAll()
          .where('user_id', '=', benchUserId)
          .where('server', '=', 'plex')
          .executeTakeFirstOrThrow();
        const rows = userIds.map((userId) => ({ ...template, user_id: userId, uuid: randomUUID() }));
        await insertRows(trx, 'webhooks', rows);
        for (const row of rows) paths.push(benchPath.replace(benchUuid, row.uuid));
      });
    },
  };
}

/**
 * The scaling dataset, a database of its own: `scale1k` with 1,000 entries and `scale100k` with
 * 100,000, both over ten years, on 10,000 movies.
 */
export async function seedScale(db) {
  const rand = seededRandom(100_000);
  const small = await userWithToken(db, 'scale1k');
  const large = await userWithToken(db, 'scale100k');
  const counts = await db.transaction().execute(async (trx) => {
    const movieIds = await insertMovies(trx, rand, 10_000, 100_000);
    await insertGenres(trx, rand, movieIds);
    const order = shuffled(rand, movieIds);
    const smallRows = historyRows({ userId: small.id, movieIds: order.slice(0, 300), entries: 1_000, rand });
    const largeRows = historyRows({ userId: large.id, movieIds: order, entries: 100_000, rand });
    await insertRows(trx, 'watch_dates', smallRows);
    await insertRows(trx, 'watch_dates', largeRows);
    await insertRows(trx, 'ratings', ratingRows(rand, large.id, order.slice(0, 1500)));
    await insertRows(trx, 'ratings', ratingRows(rand, small.id, order.slice(0, 100)));
    return { movies: movieIds.length, scale1kEntries: smallRows.length, scale100kEntries: largeRows.length };
  });
  return { small, large, counts };
}

/**
 * The statistics dataset (bench/statistics.js), a database of its own: `stats` with `entries` dated
 * entries (100,000) over ten years and 40 undated, on 10,000 movies with genres and credits, 1,500
 * ratings.
 */
export async function seedStatistics(db, { entries = 100_000, movies = 10_000 } = {}) {
  const rand = seededRandom(20_100);
  const user = await userWithToken(db, 'stats');
  const counts = await db.transaction().execute(async (trx) => {
    const movieIds = await insertMovies(trx, rand, movies, 100_000);
    await insertGenres(trx, rand, movieIds);
    const credits = await insertCredits(trx, movieIds);
    const order = shuffled(rand, movieIds);
    const rows = historyRows({ userId: user.id, movieIds: order, entries, nullDates: 40, rand });
    await insertRows(trx, 'watch_dates', rows);
    await insertRows(trx, 'ratings', ratingRows(rand, user.id, order.slice(0, 1500)));
    return {
      movies: movieIds.length,
      entries: rows.length,
      plays: rows.reduce((n, row) => n + row.plays, 0),
      ...credits,
    };
  });
  return { user, counts };
}

/**
 * The diary's own values on a user's entries (issue 30), for the statistics: an own rating on 30 % of
 * them, a rewatch flag set on 1 % (half each way), and 100 tags on 20 % (one or two each).
 */
export async function seedDiary(db, userId) {
  const rand = seededRandom(30_030);
  const entries = await db.selectFrom('watch_dates').select('id').where('user_id', '=', userId).execute();
  const now = new Date(FIRST_DAY).toISOString();
  return db.transaction().execute(async (trx) => {
    await insertRows(
      trx,
      'tags',
      Array.from({ length: 100 }, (_, i) => ({
        user_id: userId,
        name: `Tag ${i}`,
        key: `tag ${i}`,
        created_at: now,
      })),
    );
    const tagIds = (await trx.selectFrom('tags').select('id').where('user_id', '=', userId).execute()).map(
      (t) => t.id,
    );
    const links = new Map();
    let rated = 0;
    let flagged = 0;
    for (const { id } of entries) {
      const rating = rand() < 0.3 ? 1 + Math.floor(rand() * 10) : null;
      const rewatch = rand() < 0.01 ? (rand() < 0.5 ? 0 : 1) : null;
      if (rating !== null || rewatch !== null) {
        await trx.updateTable('watch_dates').set({ rating, rewatch }).where('id', '=', id).execute();
        if (rating !== null) rated += 1;
        if (rewatch !== null) flagged += 1;
      }
      if (rand() < 0.2) {
        for (let n = rand() < 0.5 ? 1 : 2; n > 0; n--) {
          const tagId = tagIds[Math.floor(rand() * rand() * tagIds.length)];
          links.set(`${tagId}:${id}`, { tag_id: tagId, watch_date_id: id });
        }
      }
    }
    await insertRows(trx, 'entry_tags', [...links.values()]);
    return { ownRatings: rated, rewatchFlags: flagged, tagLinks: links.size };
  });
}

/**
 * The pages dataset (issue 28, `pages` in bench/run.js), a database of its own: 4,000 movies with
 * genres and credits (about 21 billed actors each), `pages100k` with 100,000 dated entries over ten
 * years on all of them and `pages1k` with 1,000 on 300; each with 1,500 (100) ratings and 300 (60)
 * watchlist entries. Both sign in through the login form (bench/scenarios.js). The diary and lists
 * (issue 30): a third of each user's entries rated, 2 % marked rewatch or not, twelve tags (`common` on
 * a fifth of the entries, `rare` on 20), 500 (50) likes and a ranked list of 1,000 movies with notes.
 */
export async function seedPages(db) {
  const rand = seededRandom(4_000_100);
  const small = await userWithToken(db, 'pages1k');
  const large = await userWithToken(db, 'pages100k');
  const counts = await db.transaction().execute(async (trx) => {
    const movieIds = await insertMovies(trx, rand, 4_000, 200_000);
    await insertGenres(trx, rand, movieIds);
    const credits = await insertCredits(trx, movieIds);
    const order = shuffled(rand, movieIds);
    const smallRows = historyRows({ userId: small.id, movieIds: order.slice(0, 300), entries: 1_000, rand });
    const largeRows = historyRows({ userId: large.id, movieIds: order, entries: 100_000, rand });
    await insertRows(trx, 'watch_dates', smallRows);
    await insertRows(trx, 'watch_dates', largeRows);
    await insertRows(trx, 'ratings', ratingRows(rand, large.id, order.slice(0, 1500)));
    await insertRows(trx, 'ratings', ratingRows(rand, small.id, order.slice(0, 100)));
    const unwatched = order.slice(-300);
    await insertRows(trx, 'watchlist', watchlistRows(rand, large.id, unwatched));
    await insertRows(trx, 'watchlist', watchlistRows(rand, small.id, unwatched.slice(0, 60)));
    const diaries = [];
    for (const [user, likes] of [
      [large, 500],
      [small, 50],
    ]) {
      diaries.push(await diaryOf(trx, user.id, { likes, movieIds: order }));
    }
    return {
      movies: movieIds.length,
      pages1kEntries: smallRows.length,
      pages100kEntries: largeRows.length,
      ...credits,
      pages100kTaggedEntries: diaries[0].tagged,
      listMovies: diaries[0].listMovies,
    };
  });
  const listIds = Object.fromEntries(
    (await db.selectFrom('lists').select(['user_id', 'id']).execute()).map((row) => [row.user_id, row.id]),
  );
  return {
    small: { ...small, listId: listIds[small.id] },
    large: { ...large, listId: listIds[large.id] },
    password: PASSWORD,
    counts,
  };
}

/** Tag names of the pages dataset: `common` on a fifth of a user's entries, `rare` on 20, ten others. */
const TAGS = ['common', 'rare', ...Array.from({ length: 10 }, (_, i) => `tag ${i + 1}`)];

/**
 * The diary and lists of one user of the pages dataset, on their entries as inserted: entry ratings,
 * rewatch marks, tags, likes and a ranked list of 1,000 movies.
 */
async function diaryOf(trx, userId, { likes, movieIds }) {
  const entries = await trx
    .selectFrom('watch_dates')
    .select('id')
    .where('user_id', '=', userId)
    .where('watched_at', 'is not', null)
    .orderBy('id')
    .execute();
  const dated = trx
    .updateTable('watch_dates')
    .where('user_id', '=', userId)
    .where('watched_at', 'is not', null);
  await dated.set({ rating: sql`(id * 7) % 10 + 1` }).where(sql`id % 3`, '=', 0).execute();
  await dated
    .set({ rewatch: sql`case when id % 100 = 0 then 1 else 0 end` })
    .where(sql`id % 50`, '=', 0)
    .execute();
  const created = '2024-01-01T00:00:00.000Z';
  await insertRows(
    trx,
    'tags',
    TAGS.map((name) => ({ user_id: userId, name, key: name, created_at: created })),
  );
  const tagIds = (await trx.selectFrom('tags').select(['id', 'name']).where('user_id', '=', userId).execute())
    .sort((a, b) => TAGS.indexOf(a.name) - TAGS.indexOf(b.name))
    .map((row) => row.id);
  const links = [];
  for (const [i, { id }] of entries.entries()) {
    if (i % 5 === 0) links.push({ tag_id: tagIds[0], watch_date_id: id });
    if (i % Math.max(1, Math.floor(entries.length / 20)) === 1)
      links.push({ tag_id: tagIds[1], watch_date_id: id });
    if (i % 7 === 0) links.push({ tag_id: tagIds[2 + (i % 10)], watch_date_id: id });
  }
  await insertRows(trx, 'entry_tags', links);
  await insertRows(
    trx,
    'likes',
    movieIds.slice(0, likes).map((movieId, i) => ({
      user_id: userId,
      movie_id: movieId,
      liked_at: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
    })),
  );
  const [list] = await trx
    .insertInto('lists')
    .values({
      user_id: userId,
      name: 'A thousand favourites',
      description: 'Every movie worth a second look, best first.',
      ranked: 1,
      visibility: 'private',
      created_at: created,
      updated_at: created,
    })
    .returning('id')
    .execute();
  await insertRows(
    trx,
    'list_movies',
    movieIds.slice(0, 1_000).map((movieId, i) => ({
      list_id: list.id,
      movie_id: movieId,
      position: i + 1,
      note: i % 10 === 0 ? 'A note on why this one is here.' : null,
      added_at: created,
    })),
  );
  return { tagged: links.length, listMovies: 1_000 };
}

/**
 * The statistics' history of `bench/statistics.js` and `bench/statistics-compare.js` on a database of
 * `createDatabase` (bench/databases.js): `seedStatistics`, the diary's figures on its entries
 * (`seedDiary`), then the aggregates counted (`prepareForReads`). Returns the user and every count.
 */
export async function seedStatisticsHistory(database, { entries, movies }) {
  const { user, counts } = await seedStatistics(database.db, { entries, movies });
  Object.assign(counts, await seedDiary(database.db, user.id));
  await database.prepareForReads();
  return { user, counts };
}
