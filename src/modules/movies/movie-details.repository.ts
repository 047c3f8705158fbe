import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { upsertPeople } from './people.repository.js';
import type { ProviderMovieData } from './provider-movie.js';

type Db = Kysely<Database>;

// A movie's data beyond its own row: what is linked to it is replaced whole on every fetch, while the
// things linked (genres, countries, languages, companies, collections, people) are stored once each
// and upserted in key order, so that concurrent adds sharing them lock them in one order.

/** Stores the collection once by TMDB id (its name and images as TMDB gives them now); its service id. */
export async function upsertCollection(
  db: Db,
  collection: NonNullable<ProviderMovieData['collection']>,
): Promise<number> {
  const { id } = await db
    .insertInto('collections')
    .values({
      tmdb_id: collection.tmdbId,
      name: collection.name,
      poster_path: collection.posterPath,
      backdrop_path: collection.backdropPath,
    })
    .onConflict((oc) =>
      oc.column('tmdb_id').doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'),
        poster_path: eb.ref('excluded.poster_path'),
        backdrop_path: eb.ref('excluded.backdrop_path'),
      })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/**
 * Replaces the movie's genres, countries, languages and companies, and its cast and crew unless
 * `data.credits` is null (TMDB sent none: the stored ones stay).
 */
export async function replaceMovieDetails(
  db: Db,
  movieId: number,
  data: ProviderMovieData,
  now: string,
): Promise<void> {
  await replaceGenres(db, movieId, data.genres);
  await replaceCountries(db, movieId, data.countries);
  await replaceLanguages(db, movieId, data.languages);
  await replaceCompanies(db, movieId, data.companies);
  if (data.credits) await replaceCredits(db, movieId, data.credits, now);
}

async function replaceGenres(db: Db, movieId: number, genres: ProviderMovieData['genres']) {
  await db.deleteFrom('movie_genres').where('movie_id', '=', movieId).execute();
  if (genres.length === 0) return;
  const ids = await upsertByTmdbId(
    genres.map((genre) => ({ tmdb_id: genre.tmdbId, name: genre.name })),
    (rows) =>
      db
        .insertInto('genres')
        .values(rows)
        .onConflict((oc) => oc.column('tmdb_id').doUpdateSet((eb) => ({ name: eb.ref('excluded.name') })))
        .returning(['id', 'tmdb_id'])
        .execute(),
  );
  await db
    .insertInto('movie_genres')
    .values(
      genres.map((genre, position) => ({ movie_id: movieId, genre_id: ids.get(genre.tmdbId)!, position })),
    )
    .execute();
}

async function replaceCountries(db: Db, movieId: number, countries: ProviderMovieData['countries']) {
  await db.deleteFrom('movie_countries').where('movie_id', '=', movieId).execute();
  if (countries.length === 0) return;
  await db
    .insertInto('countries')
    .values([...countries].sort(byKey((c) => c.code)).map(({ code, name }) => ({ code, name })))
    .onConflict((oc) => oc.column('code').doUpdateSet((eb) => ({ name: eb.ref('excluded.name') })))
    .execute();
  await db
    .insertInto('movie_countries')
    .values(countries.map((c, position) => ({ movie_id: movieId, country_code: c.code, position })))
    .execute();
}

async function replaceLanguages(db: Db, movieId: number, languages: ProviderMovieData['languages']) {
  await db.deleteFrom('movie_languages').where('movie_id', '=', movieId).execute();
  if (languages.length === 0) return;
  await db
    .insertInto('languages')
    .values(
      [...languages]
        .sort(byKey((l) => l.code))
        .map((l) => ({ code: l.code, english_name: l.englishName, name: l.name })),
    )
    // A response without names (older ones lack english_name) does not erase names already known.
    .onConflict((oc) =>
      oc.column('code').doUpdateSet((eb) => ({
        english_name: eb.fn.coalesce('excluded.english_name', 'languages.english_name'),
        name: eb.fn.coalesce('excluded.name', 'languages.name'),
      })),
    )
    .execute();
  await db
    .insertInto('movie_languages')
    .values(languages.map((l, position) => ({ movie_id: movieId, language_code: l.code, position })))
    .execute();
}

async function replaceCompanies(db: Db, movieId: number, companies: ProviderMovieData['companies']) {
  await db.deleteFrom('movie_companies').where('movie_id', '=', movieId).execute();
  if (companies.length === 0) return;
  const ids = await upsertByTmdbId(
    companies.map((c) => ({
      tmdb_id: c.tmdbId,
      name: c.name,
      logo_path: c.logoPath,
      origin_country: c.originCountry,
    })),
    (rows) =>
      db
        .insertInto('companies')
        .values(rows)
        .onConflict((oc) =>
          oc.column('tmdb_id').doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            logo_path: eb.ref('excluded.logo_path'),
            origin_country: eb.ref('excluded.origin_country'),
          })),
        )
        .returning(['id', 'tmdb_id'])
        .execute(),
  );
  await db
    .insertInto('movie_companies')
    .values(companies.map((c, position) => ({ movie_id: movieId, company_id: ids.get(c.tmdbId)!, position })))
    .execute();
}

async function replaceCredits(
  db: Db,
  movieId: number,
  credits: NonNullable<ProviderMovieData['credits']>,
  now: string,
) {
  await db.deleteFrom('movie_cast').where('movie_id', '=', movieId).execute();
  await db.deleteFrom('movie_crew').where('movie_id', '=', movieId).execute();
  const personIds = await upsertPeople(db, credits.people, now);
  if (credits.cast.length > 0) {
    // A person's first place on the bill (lowest order) is marked: rankings count a movie once.
    const firstPlace = new Map<number, number>();
    for (const credit of credits.cast) {
      const known = firstPlace.get(credit.personTmdbId);
      if (known === undefined || credit.order < known) firstPlace.set(credit.personTmdbId, credit.order);
    }
    await db
      .insertInto('movie_cast')
      .values(
        credits.cast.map((credit) => ({
          movie_id: movieId,
          person_id: personIds.get(credit.personTmdbId)!,
          character: credit.character,
          cast_order: credit.order,
          first_place: firstPlace.get(credit.personTmdbId) === credit.order ? 1 : 0,
        })),
      )
      .execute();
  }
  if (credits.crew.length > 0) {
    await db
      .insertInto('movie_crew')
      .values(
        credits.crew.map((credit, position) => ({
          movie_id: movieId,
          person_id: personIds.get(credit.personTmdbId)!,
          department: credit.department,
          job: credit.job,
          position,
        })),
      )
      .execute();
  }
}

/** Runs a multi-row upsert of rows keyed by `tmdb_id`, in key order; the service ids by TMDB id. */
async function upsertByTmdbId<Row extends { tmdb_id: number }>(
  rows: Row[],
  upsert: (sorted: Row[]) => Promise<{ id: number; tmdb_id: number }[]>,
): Promise<Map<number, number>> {
  const stored = await upsert([...rows].sort(byKey((row) => row.tmdb_id)));
  return new Map(stored.map((row) => [row.tmdb_id, row.id]));
}

const byKey =
  <T>(key: (item: T) => string | number) =>
  (a: T, b: T) => {
    const [x, y] = [key(a), key(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  };

// --- reads ---

/** The movie's own row, with its collection. */
export async function findMovieWithCollection(db: Db, movieId: number) {
  return db
    .selectFrom('movies as m')
    .leftJoin('collections as c', 'c.id', 'm.collection_id')
    .selectAll('m')
    .select([
      'c.tmdb_id as collection_tmdb_id',
      'c.name as collection_name',
      'c.poster_path as collection_poster_path',
      'c.backdrop_path as collection_backdrop_path',
    ])
    .where('m.id', '=', movieId)
    .executeTakeFirst();
}

export async function genresOf(db: Db, movieId: number) {
  return db
    .selectFrom('movie_genres as mg')
    .innerJoin('genres as g', 'g.id', 'mg.genre_id')
    .select(['g.id', 'g.tmdb_id', 'g.name'])
    .where('mg.movie_id', '=', movieId)
    .orderBy('mg.position')
    .execute();
}

export async function countriesOf(db: Db, movieId: number) {
  return db
    .selectFrom('movie_countries as mc')
    .innerJoin('countries as c', 'c.code', 'mc.country_code')
    .select(['c.code', 'c.name'])
    .where('mc.movie_id', '=', movieId)
    .orderBy('mc.position')
    .execute();
}

export async function languagesOf(db: Db, movieId: number) {
  return db
    .selectFrom('movie_languages as ml')
    .innerJoin('languages as l', 'l.code', 'ml.language_code')
    .select(['l.code', 'l.english_name', 'l.name'])
    .where('ml.movie_id', '=', movieId)
    .orderBy('ml.position')
    .execute();
}

/** A language's names, for a code such as a movie's original language; undefined when none is stored. */
export async function findLanguage(db: Db, code: string) {
  return db
    .selectFrom('languages')
    .select(['code', 'english_name', 'name'])
    .where('code', '=', code)
    .executeTakeFirst();
}

export async function companiesOf(db: Db, movieId: number) {
  return db
    .selectFrom('movie_companies as mc')
    .innerJoin('companies as c', 'c.id', 'mc.company_id')
    .select(['c.id', 'c.tmdb_id', 'c.name', 'c.logo_path', 'c.origin_country'])
    .where('mc.movie_id', '=', movieId)
    .orderBy('mc.position')
    .execute();
}

const personColumns = [
  'p.id as person_id',
  'p.tmdb_id as person_tmdb_id',
  'p.name',
  'p.profile_path',
] as const;

/** The cast in billing order. */
export async function castOf(db: Db, movieId: number) {
  return db
    .selectFrom('movie_cast as c')
    .innerJoin('people as p', 'p.id', 'c.person_id')
    .select([...personColumns, 'c.character', 'c.cast_order'])
    .where('c.movie_id', '=', movieId)
    .orderBy('c.cast_order')
    .execute();
}

/** The crew in the order it is shown (the order of the jobs kept). */
export async function crewOf(db: Db, movieId: number) {
  return db
    .selectFrom('movie_crew as c')
    .innerJoin('people as p', 'p.id', 'c.person_id')
    .select([...personColumns, 'c.department', 'c.job'])
    .where('c.movie_id', '=', movieId)
    .orderBy('c.position')
    .execute();
}
