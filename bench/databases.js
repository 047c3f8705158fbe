// The benchmark's databases: a SQLite file in a temporary folder, or a fresh PostgreSQL database
// `cinelog_bench_<random>` on the TEST_DATABASE_URL server, dropped at the end.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../dist/db/database.js';
import { migrateToLatest } from '../dist/db/migrator.js';
import { rebuildStatistics } from '../dist/modules/library/statistics-aggregates.js';

async function admin(serverUrl, statement) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A new, migrated database of `engine`, open in this process. `drop()` closes it and deletes it.
 * `prepareForReads()` brings it to the state a database in service is in after bulk loading: the
 * statistics' aggregates, which the library keeps on every write, are counted from the rows seeded
 * behind its back; PostgreSQL gets VACUUM ANALYZE, which autovacuum would otherwise run in the middle
 * of a measurement, and SQLite a checkpoint.
 */
export async function createDatabase(engine, { dir, name, serverUrl }) {
  let url;
  let dropDatabase = async () => {};
  if (engine === 'sqlite') {
    url = `sqlite:${join(dir, `${name}.sqlite`)}`;
  } else {
    const database = `cinelog_bench_${randomBytes(5).toString('hex')}`;
    await admin(serverUrl, `create database ${database}`);
    const parsed = new URL(serverUrl);
    parsed.pathname = `/${database}`;
    url = parsed.toString();
    dropDatabase = () => admin(serverUrl, `drop database if exists ${database} with (force)`);
  }
  const handle = openDatabase(url, { poolSize: 4 });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  try {
    await migrateToLatest(handle.db);
  } catch (error) {
    await close();
    await dropDatabase();
    throw error;
  }
  return {
    engine,
    url,
    db: handle.db,
    async prepareForReads() {
      await rebuildStatistics(handle.db);
      if (engine === 'postgres') await sql`vacuum analyze`.execute(handle.db);
      // SQLite: the bulk load's pages out of the WAL, which every read would otherwise look through.
      else await sql`pragma wal_checkpoint(truncate)`.execute(handle.db);
    },
    async serverVersion() {
      if (engine === 'postgres') {
        const { rows } = await sql`show server_version`.execute(handle.db);
        return `PostgreSQL ${rows[0].server_version}`;
      }
      const { rows } = await sql`select sqlite_version() as v`.execute(handle.db);
      return `SQLite ${rows[0].v}`;
    },
    async drop() {
      await close();
      await dropDatabase();
    },
  };
}
