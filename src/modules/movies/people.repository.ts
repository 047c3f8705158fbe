import type { Kysely } from 'kysely';
import { keptBetweenWrites } from '../../db/generation.js';
import type { Database } from '../../db/schema.js';
import { containsText, startsWithText } from '../../db/sql.js';
import type { ProviderPerson } from './provider-movie.js';

type Db = Kysely<Database>;

/**
 * Stores each person once, by TMDB id: new ones are added, known ones get the name, picture and
 * department TMDB gives now. Returns the service id of every person by TMDB id. One statement.
 */
export async function upsertPeople(
  db: Db,
  people: readonly ProviderPerson[],
  now: string,
): Promise<Map<number, number>> {
  if (people.length === 0) return new Map();
  // In TMDB id order, so that concurrent adds sharing people lock them in one order (no deadlock).
  const rows = [...people]
    .sort((a, b) => a.tmdbId - b.tmdbId)
    .map((person) => ({
      tmdb_id: person.tmdbId,
      name: person.name,
      profile_path: person.profilePath,
      known_for_department: person.knownForDepartment,
      updated_at: now,
    }));
  const stored = await db
    .insertInto('people')
    .values(rows)
    .onConflict((oc) =>
      oc.column('tmdb_id').doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'),
        profile_path: eb.ref('excluded.profile_path'),
        known_for_department: eb.ref('excluded.known_for_department'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returning(['id', 'tmdb_id'])
    .execute();
  return new Map(stored.map((row) => [row.tmdb_id, row.id]));
}

/** A person's name by id, kept between writes to people (`findPerson`). */
export const keptPeople = keptBetweenWrites<number>(['people'], 1_000);

export async function findPerson(db: Db, personId: number) {
  return db
    .selectFrom('people')
    .select(['id', 'tmdb_id', 'name', 'profile_path', 'known_for_department', 'updated_at'])
    .where('id', '=', personId)
    .executeTakeFirst();
}

const movieColumns = [
  'm.id as movie_id',
  'm.tmdb_id as movie_tmdb_id',
  'm.title',
  'm.release_date',
  'm.poster_path',
] as const;

/** The person's places in the casts of stored movies, newest release first (undated last), then title. */
export async function castCreditsOf(db: Db, personId: number) {
  return db
    .selectFrom('movie_cast as c')
    .innerJoin('movies as m', 'm.id', 'c.movie_id')
    .select([...movieColumns, 'c.character', 'c.cast_order'])
    .where('c.person_id', '=', personId)
    .orderBy((eb) => eb.case().when('m.release_date', 'is', null).then(1).else(0).end())
    .orderBy('m.release_date', 'desc')
    .orderBy('m.title')
    .orderBy('m.id')
    .orderBy('c.cast_order')
    .execute();
}

/** The person's jobs in stored movies, in the same order as their cast credits, then the movie's crew order. */
export async function crewCreditsOf(db: Db, personId: number) {
  return db
    .selectFrom('movie_crew as c')
    .innerJoin('movies as m', 'm.id', 'c.movie_id')
    .select([...movieColumns, 'c.department', 'c.job'])
    .where('c.person_id', '=', personId)
    .orderBy((eb) => eb.case().when('m.release_date', 'is', null).then(1).else(0).end())
    .orderBy('m.release_date', 'desc')
    .orderBy('m.title')
    .orderBy('m.id')
    .orderBy('c.position')
    .execute();
}

/**
 * Stored people whose name holds `term` (any case), those whose name starts with it first, then by
 * name; at most `limit`. A scan of the people's names (no index serves a substring).
 */
export async function searchPeople(db: Db, term: string, limit: number) {
  return db
    .selectFrom('people')
    .select(['id', 'name', 'profile_path', 'known_for_department'])
    .where(containsText('name', term))
    .orderBy((eb) => eb.case().when(startsWithText('name', term)).then(0).else(1).end())
    .orderBy('name')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The directors of these movies by movie, in crew order (one query). */
export async function directorsOf(db: Db, movieIds: readonly number[]): Promise<Map<number, string[]>> {
  const directors = new Map<number, string[]>();
  if (movieIds.length === 0) return directors;
  const rows = await db
    .selectFrom('movie_crew as c')
    .innerJoin('people as p', 'p.id', 'c.person_id')
    .select(['c.movie_id', 'p.name'])
    .where('c.movie_id', 'in', [...new Set(movieIds)])
    .where('c.job', '=', 'Director')
    .orderBy('c.movie_id')
    .orderBy('c.position')
    .execute();
  for (const row of rows) {
    const names = directors.get(row.movie_id) ?? [];
    names.push(row.name);
    directors.set(row.movie_id, names);
  }
  return directors;
}
