// The scenarios of the bench (bench/run.js) and of the comparison of two builds (bench/compare.js):
// each a request (or a request made anew for each k, also in wrk's Lua), the status expected, and for
// writes a check of what was written.
import { randomBytes } from 'node:crypto';

/** A URL takes 120 webhook reports a minute; the scrobble scenario sends each at most this many. */
export const SCROBBLES_PER_URL = 100;
/** Plex lastViewedAt of successive reports to one URL: further apart than the 6 h dedupe window. */
const SCROBBLE_STEP_SECONDS = 7 * 3600;
const SCROBBLE_FIRST_VIEW = Date.UTC(2024, 0, 1) / 1000;
/** Dates of the one-play POSTs: before the seeded history, a new (movie, date) row each time. */
const POST_FIRST_DAY = Date.UTC(2000, 0, 1);
/** A number that appears nowhere else in a scrobble's body: where the Lua puts lastViewedAt. */
const VIEW_MARK = 987_654_321_012;

/** The CSRF secret a browser keeps in its `cinelog_csrf` cookie (@fastify/csrf's format). */
const CSRF_SECRET = randomBytes(18).toString('base64url');

export function readScenarios({ bench }) {
  const headers = { authorization: `Bearer ${bench.token}` };
  const user = '/api/users/bench';
  return [
    { name: 'history page 1', path: `${user}/history/movies`, headers, expect: 200, items: 24 },
    { name: 'history page 400', path: `${user}/history/movies?page=400`, headers, expect: 200, items: 24 },
    { name: 'played page 1', path: `${user}/played/movies`, headers, expect: 200, items: 24 },
    { name: 'watchlist page 1', path: `${user}/watchlist/movies`, headers, expect: 200, items: 24 },
    { name: 'token check', path: '/api/authentication/token', headers, expect: 200 },
    // Issue 20: the first request computes them (firstRequestMs), the others are served from the cache.
    { name: 'statistics', path: `${user}/statistics`, headers, expect: 200 },
    { name: 'statistics, one year', path: `${user}/statistics?year=2020`, headers, expect: 200 },
    // The web app's history page: the same page of the same list, as HTML in the layout, for a session.
    {
      name: 'HTML history page 1',
      path: '/history',
      headers: { cookie: `cinelog_session=${bench.session}; cinelog_csrf=${CSRF_SECRET}` },
      expect: 200,
    },
  ];
}

/** `settings`: the run's (warmupSeconds, seconds), for the scrobbles' pool of URLs. */
export function writeScenarios({ bench, watchedMovieIds, knownMovie }, pool, db, settings) {
  const json = { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const movies = watchedMovieIds.length;
  /** A Plex report (urlencoded `payload=`, as Plex sends it) of a finished watch of the known movie. */
  const scrobbleBody = (lastViewedAt) =>
    `payload=${encodeURIComponent(
      JSON.stringify({
        event: 'media.scrobble',
        user: true,
        owner: true,
        Account: { id: 1, title: 'bench' },
        Server: { title: 'bench-server', uuid: 'a1b2c3' },
        Player: { local: true, title: 'Living Room', uuid: 'p1' },
        Metadata: {
          librarySectionType: 'movie',
          type: 'movie',
          title: 'The Known Movie',
          year: 2001,
          guid: 'plex://movie/5d776b59ad5437001f79c6f8',
          Guid: [{ id: `imdb://tt${1_000_000 + knownMovie.tmdbId}` }, { id: `tmdb://${knownMovie.tmdbId}` }],
          lastViewedAt,
        },
      }),
    )}`;
  return [
    {
      name: 'history POST (1 play)',
      expect: 204,
      // Request k: one play of one of bench's movies, on a date before its seeded history.
      request: (k) => ({
        method: 'POST',
        path: '/api/users/bench/history/movies',
        headers: json,
        body: JSON.stringify([
          {
            serviceId: watchedMovieIds[k % movies],
            watchedAt: new Date(POST_FIRST_DAY + Math.floor(k / movies) * 86_400_000)
              .toISOString()
              .slice(0, 10),
          },
        ]),
      }),
      // The same in wrk's Lua.
      vary: {
        data: { ids: watchedMovieIds, headers: json, firstDay: POST_FIRST_DAY / 1000 },
        lua: `function make(k, data)
  local n = #data.ids
  local day = os.date('!%Y-%m-%d', data.firstDay + math.floor(k / n) * 86400)
  return 'POST', '/api/users/bench/history/movies', data.headers,
    '[{"serviceId":' .. data.ids[k % n + 1] .. ',"watchedAt":"' .. day .. '"}]'
end`,
      },
      async verify(sent) {
        const row = await db
          .selectFrom('watch_dates')
          .innerJoin('users', 'users.id', 'watch_dates.user_id')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('users.name', '=', 'bench')
          .where('watch_dates.watched_at', '<', '2015-01-01')
          .executeTakeFirstOrThrow();
        const rows = Number(row.n);
        return { rowsWritten: rows, ok: rows >= sent, note: `${rows} new watch dates for ${sent} 204s` };
      },
    },
    {
      name: 'Plex scrobble',
      expect: 200,
      // Request k: a finished watch of the known movie, to URL k/100 of the pool, 7 h after the
      // previous report to that URL, so that none falls in another's dedupe window: each one counts.
      request: (k) => ({
        method: 'POST',
        path: pool.pathFor(k),
        headers: form,
        body: scrobbleBody(SCROBBLE_FIRST_VIEW + (k % SCROBBLES_PER_URL) * SCROBBLE_STEP_SECONDS),
      }),
      // The same in wrk's Lua: the body around its one number, the pool's URLs as they are now (the
      // app's script is written after \`beforeApp\` has added URLs).
      vary: {
        data: () => {
          const [before, after, ...more] = scrobbleBody(VIEW_MARK).split(String(VIEW_MARK));
          if (after === undefined || more.length > 0) throw new Error('VIEW_MARK must appear once');
          return {
            paths: pool.paths,
            perUrl: SCROBBLES_PER_URL,
            first: SCROBBLE_FIRST_VIEW,
            step: SCROBBLE_STEP_SECONDS,
            headers: form,
            before,
            after,
          };
        },
        lua: `function make(k, data)
  local path = data.paths[math.floor(k / data.perUrl) % #data.paths + 1]
  local view = data.first + (k % data.perUrl) * data.step
  return 'POST', path, data.headers, data.before .. string.format('%d', view) .. data.after
end`,
      },
      async beforeApp(bareRate) {
        // Enough URLs that none gets more than 100 reports even at the bare server's rate.
        const most = (bareRate * 1.2 + 50) * (settings.warmupSeconds + settings.seconds) + 1;
        await pool.ensure(Math.ceil(most / SCROBBLES_PER_URL) + 1);
      },
      async verify(sent) {
        const rows = await db
          .selectFrom('webhook_events')
          .select(['outcome', (eb) => eb.fn.countAll().as('n')])
          .groupBy('outcome')
          .execute();
        const outcomes = Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)]));
        const counted = outcomes.counted ?? 0;
        return {
          outcomes,
          webhookUrls: pool.size,
          ok: counted >= sent && Object.keys(outcomes).every((o) => o === 'counted'),
          note: `${counted} counted of ${sent} 200s over ${pool.size} webhook URLs`,
        };
      },
    },
  ];
}

/**
 * Signs `name` in as a browser does: `GET /login` (the CSRF cookie and the form's token), then the
 * form posted with both. Answers the `cookie` header a browser then sends (session and CSRF cookies).
 */
export async function signInThroughForm(base, name, password) {
  const cookies = new Map();
  const keep = (response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const header = () => [...cookies].map(([key, value]) => `${key}=${value}`).join('; ');
  const page = await fetch(`${base}/login`, { redirect: 'manual' });
  keep(page);
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (page.status !== 200 || !token) throw new Error(`GET /login: ${page.status}, no CSRF token`);
  const answer = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: header() },
    body: new URLSearchParams({ _csrf: token, login: name, password, remember: 'on' }).toString(),
  });
  keep(answer);
  await answer.arrayBuffer();
  if (answer.status !== 303 || !cookies.get('cinelog_session'))
    throw new Error(`signing ${name} in through the form: ${answer.status}`);
  return header();
}

/**
 * The web pages a signed-in user opens (issue 28), for a user signed in with `cookie`: the history,
 * the dashboard, the statistics and the movies grid with each sort and each filter. `filters`: a
 * genre (TMDB id) and a person (service id) the user has movies of.
 */
export function pageScenarios(cookie, { genre, person, listId }) {
  const headers = { cookie };
  const page = (name, path) => ({ name, path, headers, expect: 200 });
  return [
    page('/history', '/history'),
    // The diary's filters and its calendar (issue 30): a year, a month, rewatches, a rating.
    page('/history?year', '/history?year=2020'),
    page('/history?year&month', '/history?year=2020&month=6'),
    page('/history?rewatch', '/history?rewatch=yes'),
    page('/history?rating', '/history?rating=8'),
    page('/history/calendar', '/history/calendar?month=2020-06'),
    page('/ (dashboard)', '/'),
    page('/statistics', '/statistics'),
    page('/movies', '/movies'),
    ...['title', 'plays', 'rating', 'releaseDate', 'runtime'].map((sort) =>
      page(`/movies?sort=${sort}`, `/movies?sort=${sort}`),
    ),
    page('/movies?genre', `/movies?genre=${genre}`),
    page('/movies?decade', '/movies?decade=1990'),
    page('/movies?language', '/movies?language=fr'),
    page('/movies?rating', '/movies?rating=8'),
    page('/movies?person', `/movies?person=${person}`),
    page('/movies?q', '/movies?q=night'),
    // The diary's tags, a ranked list of 1,000 movies, the likes (issue 30).
    page('/history?tag (a fifth)', '/history?tag=common'),
    page('/history?tag (20 entries)', '/history?tag=rare'),
    page('/history?rewatch=no', '/history?rewatch=no'),
    page('/lists', '/lists'),
    page('/lists/{id} (1,000 movies)', `/lists/${listId}`),
    page('/likes', '/likes'),
  ];
}
