import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresTemplate: string;
  }
}

/** Once per run: a migrated template database that every test database is cloned from; dropped at the end. */
export default async function setup(project: TestProject) {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const template = `cinelog_tpl_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${template}`);
  const url = new URL(serverUrl);
  url.pathname = `/${template}`;
  const handle = openDatabase(url.toString(), { poolSize: 1 });
  await migrateToLatest(handle.db);
  await handle.close();
  project.provide('postgresTemplate', template);
  return async () => {
    await admin(`drop database if exists ${template} with (force)`);
  };
}
