import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/**
 * Whether `path` (TMDB's `/abc.jpg`) is an image cinelog shows: a movie's or a collection's poster or
 * backdrop, a person's picture or a company's logo.
 */
export async function isKnownImagePath(db: Db, path: string): Promise<boolean> {
  const row = await db
    .selectNoFrom((eb) =>
      eb
        .or([
          eb.exists(eb.selectFrom('movies').select(sql`1`.as('one')).where('poster_path', '=', path)),
          eb.exists(eb.selectFrom('movies').select(sql`1`.as('one')).where('backdrop_path', '=', path)),
          eb.exists(eb.selectFrom('people').select(sql`1`.as('one')).where('profile_path', '=', path)),
          eb.exists(eb.selectFrom('collections').select(sql`1`.as('one')).where('poster_path', '=', path)),
          eb.exists(eb.selectFrom('collections').select(sql`1`.as('one')).where('backdrop_path', '=', path)),
          eb.exists(eb.selectFrom('companies').select(sql`1`.as('one')).where('logo_path', '=', path)),
        ])
        .as('known'),
    )
    .executeTakeFirstOrThrow();
  return Boolean(row.known);
}

/** People shown on a movie page with their picture: every director and the first cast members. */
export const CAST_SHOWN = 12;

/** A batch of movies after `afterId`, with their poster, backdrop and the pictures of the people shown. */
export async function imagesOfMovies(db: Db, afterId: number, limit: number) {
  const movies = await db
    .selectFrom('movies')
    .select(['id', 'poster_path', 'backdrop_path'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  if (movies.length === 0) return { movies, profiles: [] as string[] };
  const ids = movies.map((movie) => movie.id);
  const [cast, crew] = await Promise.all([
    db
      .selectFrom('movie_cast as c')
      .innerJoin('people as p', 'p.id', 'c.person_id')
      .select('p.profile_path')
      .where('c.movie_id', 'in', ids)
      .where('c.cast_order', '<', CAST_SHOWN)
      .where('p.profile_path', 'is not', null)
      .execute(),
    db
      .selectFrom('movie_crew as c')
      .innerJoin('people as p', 'p.id', 'c.person_id')
      .select('p.profile_path')
      .where('c.movie_id', 'in', ids)
      .where('c.job', '=', 'Director')
      .where('p.profile_path', 'is not', null)
      .execute(),
  ]);
  const profiles = [...new Set([...cast, ...crew].map((row) => row.profile_path!))];
  return { movies, profiles };
}
