import type { Kysely } from 'kysely';
import { precompiled } from '../../db/precompiled.js';
import type { Database, NewUser, UserRow, UserUpdate } from '../../db/schema.js';

type Db = Kysely<Database>;

const userByName = precompiled(
  (db, name: string) => db.selectFrom('users').selectAll().where('name', '=', name),
  1,
);

/** Runs on every request naming a user: compiled once. */
export async function findUserByName(db: Db, name: string): Promise<UserRow | undefined> {
  return (await userByName(db, name))[0];
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function listUsers(db: Db): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('name').execute();
}

/** A user by name (any letter case) or by e-mail address: what a sign-in form accepts. */
export function findUserByLogin(db: Db, login: string): Promise<UserRow | undefined> {
  const lower = login.toLowerCase();
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb(eb.fn('lower', ['name']), '=', lower), eb('email', '=', lower)]))
    .orderBy('id')
    .executeTakeFirst();
}

export function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function nameOrEmailTaken(
  db: Db,
  name: string,
  email: string,
): Promise<'name' | 'email' | null> {
  const row = await db
    .selectFrom('users')
    .select(['name', 'email'])
    .where((eb) => eb.or([eb(eb.fn('lower', ['name']), '=', name.toLowerCase()), eb('email', '=', email)]))
    .executeTakeFirst();
  if (!row) return null;
  return row.name.toLowerCase() === name.toLowerCase() ? 'name' : 'email';
}

export async function emailTakenByAnother(db: Db, email: string, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .where('id', '!=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertUser(db: Db, user: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(db: Db, id: number, changes: UserUpdate): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}
