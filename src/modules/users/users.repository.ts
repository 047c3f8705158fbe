import type { Kysely } from 'kysely';
import type { Database, NewUser, UserRow, UserUpdate } from '../../db/schema.js';

type Db = Kysely<Database>;

export function findUserByName(db: Db, name: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('name', '=', name).executeTakeFirst();
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

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
