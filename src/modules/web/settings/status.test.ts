import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../../../../test/databases.js';
import { FAKE_TMDB_API_KEY, type FakeTmdb, startFakeTmdb } from '../../../../test/fake-tmdb.js';
import { createUser, setupTestApp, type TestContext } from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';
import { createTmdbClient } from '../../../integrations/tmdb/tmdb.client.js';
import { BACKUP_DATABASE } from '../../backups/backups.jobs.js';

describe('TMDB notice and the status page', () => {
  let fake: FakeTmdb;
  let ctx: TestContext;
  beforeAll(async () => {
    fake = await startFakeTmdb();
  });
  afterAll(() => fake.close());
  afterEach(() => ctx.close());

  const withTmdb = () =>
    setupTestApp({ tmdb: createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: fake.url, maxRetries: 0 }) });

  it('tells administrators on every page that nothing can be added without TMDB_API_KEY, and how to fix it', async () => {
    ctx = await setupTestApp();
    await createUser(ctx, { name: 'ada', isAdmin: true });
    await createUser(ctx, { name: 'bob' });
    const admin = await signedInClient(ctx.app, 'ada');
    for (const path of ['/', '/settings/tokens', '/settings/account']) {
      const text = textOf((await admin.get(path)).body);
      expect(text, path).toContain('No movie can be added yet: TMDB_API_KEY is not set');
    }
    const status = await admin.get('/settings/status');
    expect(status.statusCode).toBe(200);
    const text = textOf(status.body);
    expect(text).toContain('Not configured. TMDB_API_KEY is not set');
    expect(text).toContain('Set TMDB_API_KEY');
    expect(status.body).toContain('href="https://www.themoviedb.org/settings/api"');
    // Users who cannot set it are not told.
    const user = await signedInClient(ctx.app, 'bob', { address: '10.0.0.2' });
    expect(textOf((await user.get('/')).body)).not.toContain('TMDB_API_KEY');
  });

  it('shows TMDB configured and answering, and no notice', async () => {
    fake.reset();
    ctx = await withTmdb();
    await createUser(ctx, { name: 'ada', isAdmin: true });
    const admin = await signedInClient(ctx.app, 'ada');
    expect(textOf((await admin.get('/')).body)).not.toContain('TMDB_API_KEY');
    const text = textOf((await admin.get('/settings/status')).body);
    expect(text).toMatch(/Configured, and TMDB answered in \d+ ms/);
    expect(text).toContain(`Database ${TEST_ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite'}: answering`);
    expect(text).toContain('up to 2 at once in this instance');
    expect(fake.requests.map((request) => request.path)).toContain('/configuration');
  });

  it('says when TMDB does not answer, and lists recent job failures', async () => {
    fake.reset();
    ctx = await withTmdb();
    await createUser(ctx, { name: 'ada', isAdmin: true });
    await ctx.app.jobs.queue.enqueue('movie.refresh', { movieId: 4242 }, { key: 'movie:4242' });
    await ctx.app.jobs.runner.runUntilEmpty();
    fake.failNext(1, 503);
    const admin = await signedInClient(ctx.app, 'ada');
    const text = textOf((await admin.get('/settings/status')).body);
    expect(text).toContain('Configured, but TMDB did not answer');
    expect(text).toContain('movie.refresh #1 queued 1/5');
    expect(text).toContain('no movie with serviceId 4242');
  });

  it('says whether backups are scheduled, and when the last one was taken', async () => {
    // textOf puts spaces around <code>: closed up again before punctuation.
    const statusText = async (client: WebClient) =>
      textOf((await client.get('/settings/status')).body)
        .replace(/\s+([,):;])/g, '$1')
        .replace(/\(\s+/g, '(');
    ctx = await setupTestApp();
    await createUser(ctx, { name: 'ada', isAdmin: true });
    const admin = await signedInClient(ctx.app, 'ada');
    expect(await statusText(admin)).toContain(
      TEST_ENGINE === 'postgres'
        ? 'Backups PostgreSQL: back up with pg_dump'
        : 'Backups none scheduled (BACKUP_DIR is not set): cinelog backup takes one',
    );
    if (TEST_ENGINE === 'postgres') return;
    await ctx.close();
    const dir = mkdtempSync(join(tmpdir(), 'cinelog-status-'));
    ctx = await setupTestApp({ env: { BACKUP_DIR: dir, BACKUP_KEEP: '3' } });
    await createUser(ctx, { name: 'ada', isAdmin: true });
    const again = await signedInClient(ctx.app, 'ada');
    expect(await statusText(again)).toContain(
      `Backups every 24 h into ${dir}, the newest 3 kept; none taken yet`,
    );
    await ctx.app.jobs.queue.enqueue(BACKUP_DATABASE, null);
    await ctx.app.jobs.runner.runUntilEmpty({ kinds: [BACKUP_DATABASE] });
    expect(await statusText(again)).toContain(
      `Backups every 24 h into ${dir}, the newest 3 kept; the last on 15 Jun 2024, 12:00`,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it('is for administrators only', async () => {
    ctx = await setupTestApp();
    await createUser(ctx, { name: 'bob' });
    const stranger = await new WebClient(ctx.app).get('/settings/status');
    expect(stranger.statusCode).toBe(303);
    expect(stranger.headers.location).toBe('/login?next=%2Fsettings%2Fstatus');
    const user = await signedInClient(ctx.app, 'bob');
    const refused = await user.get('/settings/status');
    expect(refused.statusCode).toBe(403);
    expect((await user.get('/settings/account')).body).not.toContain('href="/settings/status"');
  });
});
