import type { Kysely, Selectable } from 'kysely';
import type { Database, MediaServerConnectionsTable } from '../../db/schema.js';
import type { BackfillServer } from '../../integrations/media-servers/media-server.types.js';

type Db = Kysely<Database>;
export type ConnectionRow = Selectable<MediaServerConnectionsTable>;

export function listConnections(db: Db, userId: number): Promise<ConnectionRow[]> {
  return db
    .selectFrom('media_server_connections')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('server')
    .execute();
}

export function findConnection(db: Db, userId: number, server: BackfillServer) {
  return db
    .selectFrom('media_server_connections')
    .selectAll()
    .where('user_id', '=', userId)
    .where('server', '=', server)
    .executeTakeFirst();
}

/** The connections whose periodic sync is on, every user's, with their owner's name. */
export function syncedConnections(db: Db): Promise<(ConnectionRow & { user_name: string })[]> {
  return db
    .selectFrom('media_server_connections as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .selectAll('c')
    .select('u.name as user_name')
    .where('c.sync_hours', 'is not', null)
    .orderBy('c.id')
    .execute();
}

/** Saves the user's connection to the server: a new one, or replaces the URL, token and user of it. */
export async function saveConnection(
  db: Db,
  values: {
    userId: number;
    server: BackfillServer;
    url: string;
    token: string;
    serverUser: string | null;
    now: string;
  },
): Promise<void> {
  await db
    .insertInto('media_server_connections')
    .values({
      user_id: values.userId,
      server: values.server,
      url: values.url,
      token: values.token,
      server_user: values.serverUser,
      created_at: values.now,
      updated_at: values.now,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'server']).doUpdateSet({
        url: values.url,
        token: values.token,
        server_user: values.serverUser,
        updated_at: values.now,
      }),
    )
    .execute();
}

export async function updateConnection(
  db: Db,
  userId: number,
  server: BackfillServer,
  changes: Partial<
    Pick<
      ConnectionRow,
      'token' | 'sync_hours' | 'last_sync_at' | 'last_job_id' | 'last_result' | 'updated_at'
    >
  >,
): Promise<boolean> {
  const result = await db
    .updateTable('media_server_connections')
    .set(changes)
    .where('user_id', '=', userId)
    .where('server', '=', server)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteConnection(db: Db, userId: number, server: BackfillServer): Promise<boolean> {
  const result = await db
    .deleteFrom('media_server_connections')
    .where('user_id', '=', userId)
    .where('server', '=', server)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** A job's fetched pages, in order. */
export function jobPages(db: Db, jobId: number) {
  return db
    .selectFrom('media_server_backfill_pages')
    .select(['seq', 'next_cursor', 'total', 'movies'])
    .where('job_id', '=', jobId)
    .orderBy('seq')
    .execute();
}

export async function addJobPage(
  db: Db,
  page: {
    jobId: number;
    seq: number;
    nextCursor: string | null;
    total: number | null;
    movies: string;
    now: string;
  },
): Promise<void> {
  await db
    .insertInto('media_server_backfill_pages')
    .values({
      job_id: page.jobId,
      seq: page.seq,
      next_cursor: page.nextCursor,
      total: page.total,
      movies: page.movies,
      created_at: page.now,
    })
    .execute();
}

export async function deleteJobPages(db: Db, jobId: number): Promise<void> {
  await db.deleteFrom('media_server_backfill_pages').where('job_id', '=', jobId).execute();
}

/** Pages of jobs that no longer wait or run (a job forgotten, or a crash before its cleanup). */
export async function deleteOrphanPages(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('media_server_backfill_pages')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('jobs')
            .select('jobs.id')
            .whereRef('jobs.id', '=', 'media_server_backfill_pages.job_id')
            .where('jobs.state', 'in', ['queued', 'running']),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
