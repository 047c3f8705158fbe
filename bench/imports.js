// The largest imports the docs allow, through the running server as `npm start` starts it (512 MB
// heap): does it finish, how long, how much memory, and how long /healthz waits meanwhile.
//
//   npm run build && node bench/imports.js [--rows 500000]
//
// Two uploads, each imported by its job: a Movary history.csv of --rows rows (about 22 MB, under the
// 32 MB upload limit), and a cinelog JSON export of as many plays (about 90 MB) in a .zip. The movies
// are the fake TMDB's (test/fake-tmdb.ts, run as a process of its own), on dates from 1900 on, so
// nearly every row is an entry of its own. Prints one JSON line per upload.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { ROOT, sampleRss, startApp } from './servers.js';

const args = process.argv.slice(2);
const ROWS = Number(args[args.indexOf('--rows') + 1] || 500_000);
/** `--cpu-prof <dir>`: the server writes a CPU profile there when it stops. */
const PROFILE_DIR = args.includes('--cpu-prof') ? args[args.indexOf('--cpu-prof') + 1] : null;
const MOVIES = [710001, 710002, 710003, 710004, 710005, 710006];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Days from 1900 on, a movie each: the first 270,000 rows an entry each (later rows add plays to them). */
const dayOf = (i) =>
  new Date(Date.UTC(1900, 0, 1 + Math.floor((i % 270_000) / MOVIES.length))).toISOString().slice(0, 10);

function movaryHistory() {
  const lines = ['title,year,tmdbId,imdbId,watchedAt,comment,location'];
  for (let i = 0; i < ROWS; i++)
    lines.push(`Film ${i % MOVIES.length},2000,${MOVIES[i % MOVIES.length]},,${dayOf(i)},,`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

function cinelogZip() {
  const parts = ['{"format":"cinelog","version":1,"history":['];
  for (let i = 0; i < ROWS; i++) {
    const movie = MOVIES[i % MOVIES.length];
    parts.push(
      `${i === 0 ? '' : ','}\n  {"movie":{"title":"Film ${movie}","originalTitle":"Film ${movie}","year":2000,"tmdbId":${movie},"imdbId":null,"traktId":null,"letterboxdId":null},"watchedAt":"${dayOf(i)}","plays":1,"comment":null,"position":1}`,
    );
  }
  parts.push('],"watchlist":[],"ratings":[]}');
  const json = Buffer.from(parts.join(''));
  return { zip: Buffer.from(zipSync({ 'cinelog.json': json })), unpacked: json.length };
}

/** A Trakt history of `count` plays (items as Trakt's export writes them, without the extra ids). */
function traktZip(count) {
  const parts = ['['];
  for (let i = 0; i < count; i++) {
    const movie = MOVIES[i % MOVIES.length];
    parts.push(
      `${i === 0 ? '' : ','}{"id":${i + 1},"watched_at":"${dayOf(i)}T20:00:00.000Z","action":"watch","type":"movie","movie":{"title":"Film ${movie}","year":2000,"ids":{"trakt":${movie},"tmdb":${movie}}}}`,
    );
  }
  parts.push(']');
  const json = Buffer.from(parts.join(''));
  return { zip: Buffer.from(zipSync({ 'watched-history.json': json })), unpacked: json.length };
}

async function startFakeTmdb() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/container/fake-tmdb-server.ts'], {
    cwd: ROOT,
    env: { ...process.env, FAKE_TMDB_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
    child.once('exit', (code) => reject(new Error(`the fake TMDB exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/3`, stop: () => child.kill('SIGTERM') };
}

function cli(databaseUrl, ...command) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/cinelog.js', ...command], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) =>
      code === 0
        ? resolve(out.trim().split('\n').at(-1))
        : reject(new Error(`cinelog ${command.join(' ')}: ${code}`)),
    );
  });
}

/** Asks /healthz every 50 ms until stopped; the longest answer, in ms. */
function watchHealth(base) {
  let worst = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        await (await fetch(`${base}/healthz`)).arrayBuffer();
      } catch {
        worst = Number.POSITIVE_INFINITY;
      }
      worst = Math.max(worst, performance.now() - started);
      await sleep(50);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return Math.round(worst);
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'cinelog-bench-imports-'));
const databaseUrl = `sqlite:${join(dir, 'cinelog.sqlite')}`;
const tmdb = await startFakeTmdb();
try {
  await cli(databaseUrl, 'migrate');
  await cli(
    databaseUrl,
    'user',
    'create',
    '--name',
    'bench',
    '--email',
    'bench@example.test',
    '--password',
    'bench bench bench',
  );
  const token = await cli(databaseUrl, 'token', 'create', '--user', 'bench', '--name', 'bench');
  const app = await startApp({
    databaseUrl,
    logFile: join(dir, 'server.log'),
    logLevel: 'warn',
    nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
    extraEnv: {
      TMDB_API_KEY: 'fakev3key0000cinelog1111test2222',
      TMDB_BASE_URL: tmdb.url,
      IMPORTS_DIR: join(dir, 'imports'),
    },
  });
  try {
    const cinelog = cinelogZip();
    const trakt = traktZip(ROWS);
    // The outside probe's upload: a small zip of a Trakt history past the row limit, refused.
    const probe = Buffer.from(
      zipSync({
        'watched-history.json': Buffer.from(
          `[${Array.from({ length: 1_160_000 }, (_, i) => `{"watched_at":"${dayOf(i)}T20:00:00Z","type":"movie","movie":{"ids":{"tmdb":${MOVIES[i % 6]}}}}`).join(',')}]`,
        ),
      }),
    );
    for (const [name, format, body, size] of [
      ['movary history.csv', 'movary&filename=history.csv', movaryHistory(), null],
      ['cinelog json in a zip', 'cinelog', cinelog.zip, cinelog.unpacked],
      ['trakt history in a zip', 'trakt', trakt.zip, trakt.unpacked],
      ['trakt history of 1.16 million plays in a zip', 'trakt', probe, null],
    ]) {
      const rss = sampleRss(app.pid);
      const health = watchHealth(app.base);
      const started = performance.now();
      const upload = await fetch(`${app.base}/api/users/bench/imports?format=${format}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        body,
      });
      const checkedMs = Math.round(performance.now() - started);
      if (upload.status !== 202) {
        console.log(
          JSON.stringify({
            upload: name,
            uploadMB: +(body.length / 1e6).toFixed(1),
            unpackedMB: size === null ? undefined : +(size / 1e6).toFixed(1),
            checkedMs,
            refused: upload.status,
            message: (await upload.json()).message,
            worstHealthzMs: await health.stop(),
            peakRssMB: Math.round(await rss.stop()),
          }),
        );
        continue;
      }
      const { jobId } = await upload.json();
      let job;
      for (;;) {
        app.assertAlive();
        job = await (
          await fetch(`${app.base}/api/users/bench/imports/${jobId}`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).json();
        if (job.state === 'done' || job.state === 'failed') break;
        await sleep(250);
      }
      const importedMs = Math.round(performance.now() - started);
      console.log(
        JSON.stringify({
          upload: name,
          rows: ROWS,
          uploadMB: +(body.length / 1e6).toFixed(1),
          unpackedMB: size === null ? undefined : +(size / 1e6).toFixed(1),
          checkedMs,
          importedMs,
          state: job.state,
          counts: job.summary && {
            added: job.summary.added,
            existing: job.summary.existing,
            unmatched: job.summary.unmatched,
          },
          error: job.error ?? job.summary?.error,
          worstHealthzMs: await health.stop(),
          peakRssMB: Math.round(await rss.stop()),
        }),
      );
    }
  } finally {
    await app.stop();
  }
} finally {
  tmdb.stop();
  rmSync(dir, { recursive: true, force: true });
}
