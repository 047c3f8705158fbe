import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { offsetOf, type PageRequest } from '../../shared/pagination.js';
import { type MovieListQuery, movieListFilters, movieListOrder } from './movie-list.repository.js';

type Db = Kysely<Database>;

/**
 * One page of the movies a user has played (at least one watch date, the unknown date included), and
 * the total. `plays` sorts by the plays of every date together.
 */
export async function listPlayed(db: Db, userId: number, query: MovieListQuery & PageRequest) {
  const played = db
    .selectFrom('watch_dates')
    .select((eb) => [
      'movie_id',
      eb.fn.max('watched_at').as('last_watched_at'),
      eb.fn.sum<number>('plays').as('total_plays'),
    ])
    .where('user_id', '=', userId)
    .groupBy('movie_id')
    .as('p');
  let base = db
    .selectFrom(played)
    .innerJoin('movies as m', 'm.id', 'p.movie_id')
    .leftJoin('ratings as r', (join) => join.onRef('r.movie_id', '=', 'm.id').on('r.user_id', '=', userId));
  for (const filter of movieListFilters(query)) base = base.where(filter);

  // A played movie has no added date: `addedAt` sorts by its most recent watch date (a movie played
  // only on an unknown date sorts last).
  let rows = base.select('p.movie_id');
  for (const [term, direction] of movieListOrder(
    query,
    [sql.ref('p.last_watched_at')],
    [sql.ref('p.total_plays')],
  )) {
    rows = rows.orderBy(term, direction);
  }
  const [items, count] = await Promise.all([
    rows.limit(query.limit).offset(offsetOf(query)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { movieIds: items.map((item) => item.movie_id), total: Number(count.total) };
}

/** Every watch date of these movies by the user: newest first, the unknown date last. One query. */
export async function findWatchDatesOf(db: Db, userId: number, movieIds: readonly number[]) {
  if (movieIds.length === 0) return [];
  return db
    .selectFrom('watch_dates')
    .select(['movie_id', 'watched_at', 'plays', 'comment'])
    .where('user_id', '=', userId)
    .where('movie_id', 'in', [...new Set(movieIds)])
    .orderBy((eb) => eb.case().when('watched_at', 'is', null).then(1).else(0).end(), 'asc')
    .orderBy('watched_at', 'desc')
    .orderBy('position', 'desc')
    .orderBy('id', 'desc')
    .execute();
}
