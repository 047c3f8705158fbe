import type { Kysely, Selectable } from 'kysely';
import type { Database, ListsTable } from '../../db/schema.js';
import { offsetOf, type PageRequest } from '../../shared/pagination.js';
import type { ListVisibility } from './library.rules.js';

type Db = Kysely<Database>;

/** A list as the API shows it (without its movies). */
export interface ListSummary {
  id: number;
  name: string;
  description: string | null;
  ranked: boolean;
  visibility: ListVisibility;
  movieCount: number;
  /** ISO-8601 UTC timestamps. */
  createdAt: string;
  updatedAt: string;
}

type ListRow = Selectable<ListsTable> & { movie_count: number | string };

const toSummary = (row: ListRow): ListSummary => ({
  id: row.id,
  name: row.name,
  description: row.description,
  ranked: row.ranked === 1,
  visibility: row.visibility,
  movieCount: Number(row.movie_count),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const withCount = (db: Db) =>
  db
    .selectFrom('lists as l')
    .selectAll('l')
    .select((eb) =>
      eb
        .selectFrom('list_movies as lm')
        .whereRef('lm.list_id', '=', 'l.id')
        .select((inner) => inner.fn.countAll<number>().as('c'))
        .as('movie_count'),
    );

/** Every list of the user, the most recently changed first. */
export async function listsOf(db: Db, userId: number): Promise<ListSummary[]> {
  const rows = await withCount(db)
    .where('l.user_id', '=', userId)
    .orderBy('l.updated_at', 'desc')
    .orderBy('l.id', 'desc')
    .execute();
  return rows.map((row) => toSummary(row as ListRow));
}

/** The user's list `listId`; undefined when they have none of that id (another user's is none). */
export async function findList(db: Db, userId: number, listId: number): Promise<ListSummary | undefined> {
  const row = await withCount(db)
    .where('l.user_id', '=', userId)
    .where('l.id', '=', listId)
    .executeTakeFirst();
  return row ? toSummary(row as ListRow) : undefined;
}

export async function countLists(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('lists')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

export interface ListValues {
  name: string;
  description: string | null;
  ranked: boolean;
  visibility: ListVisibility;
}

/** Creates a list of the user; answers its id. */
export async function insertList(db: Db, userId: number, values: ListValues, now: string): Promise<number> {
  const row = await db
    .insertInto('lists')
    .values({
      user_id: userId,
      name: values.name,
      description: values.description,
      ranked: values.ranked ? 1 : 0,
      visibility: values.visibility,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Changes what is given of the list, and moves its `updated_at` to `now` (a change to its movies too). */
export async function updateList(db: Db, listId: number, changes: Partial<ListValues>, now: string) {
  await db
    .updateTable('lists')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.description !== undefined && { description: changes.description }),
      ...(changes.ranked !== undefined && { ranked: changes.ranked ? 1 : 0 }),
      ...(changes.visibility !== undefined && { visibility: changes.visibility }),
      updated_at: now,
    })
    .where('id', '=', listId)
    .execute();
}

/** Deletes the list and its movies. */
export async function deleteList(db: Db, listId: number): Promise<void> {
  // Explicit, not left to the foreign key: SQLite's foreign_keys pragma is a setting of the connection.
  await db.deleteFrom('list_movies').where('list_id', '=', listId).execute();
  await db.deleteFrom('lists').where('id', '=', listId).execute();
}

export async function countListMovies(db: Db, listId: number): Promise<number> {
  const row = await db
    .selectFrom('list_movies')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('list_id', '=', listId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** The movie's place and note on the list; undefined when it is not on it. */
export function listEntryOf(db: Db, listId: number, movieId: number) {
  return db
    .selectFrom('list_movies')
    .select(['position', 'note'])
    .where('list_id', '=', listId)
    .where('movie_id', '=', movieId)
    .executeTakeFirst();
}

/** Moves the movies at positions `from`..`to` (inclusive) of the list by `by` places. */
export async function shiftPositions(db: Db, listId: number, from: number, to: number, by: 1 | -1) {
  if (from > to) return;
  await db
    .updateTable('list_movies')
    .set((eb) => ({ position: eb('position', '+', by) }))
    .where('list_id', '=', listId)
    .where('position', '>=', from)
    .where('position', '<=', to)
    .execute();
}

export async function insertListMovie(
  db: Db,
  row: { listId: number; movieId: number; position: number; note: string | null; addedAt: string },
) {
  await db
    .insertInto('list_movies')
    .values({
      list_id: row.listId,
      movie_id: row.movieId,
      position: row.position,
      note: row.note,
      added_at: row.addedAt,
    })
    .execute();
}

export async function updateListMovie(
  db: Db,
  listId: number,
  movieId: number,
  values: { position: number; note: string | null },
) {
  await db
    .updateTable('list_movies')
    .set(values)
    .where('list_id', '=', listId)
    .where('movie_id', '=', movieId)
    .execute();
}

export async function deleteListMovie(db: Db, listId: number, movieId: number) {
  await db.deleteFrom('list_movies').where('list_id', '=', listId).where('movie_id', '=', movieId).execute();
}

/** One page of the list's movies in position order, and how many it holds. */
export async function listMoviesPage(db: Db, listId: number, query: PageRequest) {
  const base = db.selectFrom('list_movies').where('list_id', '=', listId);
  const [rows, count] = await Promise.all([
    base
      .select(['movie_id', 'position', 'note', 'added_at'])
      .orderBy('position')
      .orderBy('movie_id')
      .limit(query.limit)
      .offset(offsetOf(query))
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** A list a movie is on, with the movie's place on it. */
export interface ListPlace {
  id: number;
  name: string;
  ranked: boolean;
  visibility: ListVisibility;
  position: number;
}

/** The user's lists that hold the movie, with its place on each, the most recently changed first. */
export async function listsWithMovie(db: Db, userId: number, movieId: number): Promise<ListPlace[]> {
  const rows = await db
    .selectFrom('list_movies as lm')
    .innerJoin('lists as l', 'l.id', 'lm.list_id')
    .select(['l.id', 'l.name', 'l.ranked', 'l.visibility', 'lm.position'])
    .where('lm.movie_id', '=', movieId)
    .where('l.user_id', '=', userId)
    .orderBy('l.updated_at', 'desc')
    .orderBy('l.id', 'desc')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    ranked: row.ranked === 1,
    visibility: row.visibility,
    position: Number(row.position),
  }));
}
