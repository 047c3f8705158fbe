// Load benchmark: the built server on a fresh SQLite database against a bare node:http server that
// answers the same bytes (the machine's limit for that payload), in one run so machine noise cancels.
// Usage: npm run bench [-- --entries 2000 --seconds 5 --connections 32]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { openDatabase } from '../dist/db/database.js';
import { migrateToLatest } from '../dist/db/migrator.js';
import { createApiTokensService } from '../dist/modules/auth/api-tokens.service.js';
import { createUsersService } from '../dist/modules/users/users.service.js';
import { systemClock } from '../dist/shared/clock.js';

const { values: args } = parseArgs({
  options: {
    entries: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
  },
});
const ENTRIES = Number(args.entries);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);

async function seed(databaseUrl) {
  const { db, close } = openDatabase(databaseUrl);
  await migrateToLatest(db);
  const users = createUsersService({ db, clock: systemClock, defaultTimezone: 'UTC' });
  const user = await users.create({
    name: 'bench',
    email: 'bench@example.test',
    password: 'benchmark password',
  });
  const { value: token } = await createApiTokensService({ db, clock: systemClock }).create(
    user.id,
    'bench',
    'never',
  );
  const now = new Date().toISOString();
  const movieCount = Math.max(1, Math.round(ENTRIES / 10));
  await db.transaction().execute(async (trx) => {
    const movieIds = [];
    for (let i = 0; i < movieCount; i++) {
      const row = await trx
        .insertInto('movies')
        .values({
          title: `Benchmark Movie ${i}`,
          original_title: `Benchmark Movie ${i}`,
          release_date: `${1970 + (i % 50)}-01-01`,
          tagline: 'A tagline of realistic length for a movie',
          overview: 'An overview of realistic length. '.repeat(8),
          original_language: 'en',
          runtime: 90 + (i % 60),
          poster_path: `/poster${i}.jpg`,
          tmdb_id: 100000 + i,
          imdb_id: `tt${1000000 + i}`,
          tmdb_vote_average: 7.1,
          tmdb_vote_count: 1000 + i,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      movieIds.push(row.id);
    }
    // ENTRIES watch dates spread over ten years.
    const start = Date.UTC(2015, 0, 1);
    const rows = [];
    for (let i = 0; i < ENTRIES; i++) {
      const date = new Date(start + Math.floor((i / ENTRIES) * 3650) * 86_400_000).toISOString().slice(0, 10);
      rows.push({
        user_id: user.id,
        movie_id: movieIds[i % movieIds.length],
        watched_at: date,
        plays: 1,
        comment: null,
        position: 1,
        created_at: now,
        updated_at: now,
      });
    }
    for (let i = 0; i < rows.length; i += 500) {
      await trx
        .insertInto('watch_dates')
        .values(rows.slice(i, i + 500))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  });
  await close();
  return token;
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startApp(databaseUrl) {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return { child, port };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error('server did not become healthy within 5 s');
}

async function rssOf(pid) {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function load(url, headers) {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 1 }); // warm-up
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function bareServerFor(bytes, contentType) {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length });
    res.end(bytes);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'cinelog-bench-'));
  const databaseUrl = `sqlite:${join(dir, 'bench.sqlite')}`;
  process.stderr.write(`seeding ${ENTRIES} watch entries...\n`);
  const token = await seed(databaseUrl);
  const app = await startApp(databaseUrl);
  const headers = { authorization: `Bearer ${token}` };
  const base = `http://127.0.0.1:${app.port}`;
  const scenarios = [
    ['history page 1', '/api/users/bench/history/movies'],
    ['history last page', `/api/users/bench/history/movies?page=${Math.max(1, Math.ceil(ENTRIES / 24))}`],
    ['token check', '/api/authentication/token'],
  ];
  const rows = [];
  try {
    for (const [name, path] of scenarios) {
      const sample = await fetch(base + path, { headers });
      const bytes = Buffer.from(await sample.arrayBuffer());
      const bare = await bareServerFor(bytes, sample.headers.get('content-type') ?? 'application/json');
      const bareResult = await load(`http://127.0.0.1:${bare.address().port}/`, {});
      bare.close();
      const appResult = await load(base + path, headers);
      const rssMb = Math.round(await rssOf(app.child.pid));
      rows.push({
        scenario: name,
        ...appResult,
        bareRequestsPerSecond: bareResult.requestsPerSecond,
        ratioToBare: Number((appResult.requestsPerSecond / bareResult.requestsPerSecond).toFixed(2)),
        rssMb,
        responseBytes: bytes.length,
      });
    }
  } finally {
    app.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
  console.table(rows);
  mkdirSync('bench/results', { recursive: true });
  const file = join('bench/results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify({ entries: ENTRIES, seconds: SECONDS, connections: CONNECTIONS, rows }, null, 2),
  );
  process.stderr.write(`results written to ${file}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
