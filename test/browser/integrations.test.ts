import { expect, it } from 'vitest';
import { FAKE_MEDIA_TOKEN, startFakePlex } from '../fake-media-servers.js';
import { createMovie, TestClock } from '../harness.js';
import {
  apiAs,
  browserSuite,
  browserWorld,
  clickAndLoad,
  expectAccessible,
  expectNoOverflow,
  openContext,
  seedUser,
  signIn,
  textOf,
  trackerWorld,
} from './browser.js';

/** What Plex POSTs when a movie is watched to the end: multipart, the JSON in `payload`, a poster in `thumb`. */
function plexScrobble(tmdbId: number, title: string): FormData {
  const report = {
    event: 'media.scrobble',
    user: true,
    owner: true,
    Account: { id: 7, title: 'moviebuff' },
    Server: { title: 'Attic', uuid: 'a1b2c3d4e5f6' },
    Player: { local: true, title: 'Living Room TV', uuid: 'player-1' },
    Metadata: {
      librarySectionType: 'movie',
      type: 'movie',
      title,
      Guid: [{ id: `tmdb://${tmdbId}` }],
      lastViewedAt: Math.floor(Date.now() / 1000),
    },
  };
  const form = new FormData();
  form.append('payload', JSON.stringify(report));
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]);
  form.append('thumb', new Blob([jpeg], { type: 'image/jpeg' }), 'image.jpg');
  return form;
}

browserSuite('browser: integrations', () => {
  const world = browserWorld();

  it('shows a Plex URL that accepts a scrobble, the report in the inbox table, and regenerates and deletes it', async () => {
    const user = await seedUser(world.server, 'mia');
    const { value: token } = await world.server.tokens.create(user.id, 'reader', 'never');
    const movie = await createMovie(
      { db: world.server.db, clock: new TestClock(new Date()) },
      { title: 'Paper Comets', tmdb_id: 710003 },
    );
    const { context, page, problems } = await openContext(world.browser, world.server);
    await signIn(page, 'mia');

    await page.goto('/settings/integrations');
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    for (const name of ['Plex', 'Jellyfin', 'Emby', 'Kodi']) {
      expect(await page.getByRole('heading', { level: 2, name, exact: true }).count()).toBe(1);
    }
    await clickAndLoad(page, page.getByRole('button', { name: 'Create Plex webhook URL' }));
    // The contract puts the URL in <code id="plex-url">, the element its Copy button copies.
    const url = await textOf(page.locator('#plex-url'));
    expect(url).toMatch(new RegExp(`^${world.server.url}/api/webhook/mediaserver-a/[0-9a-f-]{36}$`));
    await page.getByRole('button', { name: 'Copy', exact: true }).waitFor();

    const sent = await fetch(url, { method: 'POST', body: plexScrobble(movie.tmdbId, movie.title) });
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ outcome: 'counted' });

    await page.reload();
    const reports = page.getByRole('table', { name: 'Latest Plex reports' });
    const row = reports.getByRole('row').filter({ hasText: 'Paper Comets' });
    expect(await row.count()).toBe(1);
    expect(await reports.getByRole('columnheader').allInnerTexts()).toEqual([
      'Received',
      'Event',
      'Account',
      'Movie',
      'Outcome',
      'Reason',
    ]);
    const cells = await row.getByRole('cell').allInnerTexts();
    expect(cells.slice(1, 5)).toEqual(['media.scrobble', 'moviebuff', 'Paper Comets', 'counted']);
    await expectAccessible(page);
    // Counted: the play is in the history the API serves.
    const history = await apiAs(world.server, token, '/api/users/mia/history/movies');
    expect(history.status).toBe(200);
    expect(JSON.stringify(await history.json())).toContain('Paper Comets');

    // Regenerate: the old URL stops at once, the new one works.
    // Both ask first (a details disclosure that works without JavaScript), then post.
    await page.locator('summary', { hasText: 'Regenerate Plex URL' }).click();
    await clickAndLoad(page, page.getByRole('button', { name: 'Yes, regenerate the Plex URL' }));
    const regenerated = await textOf(page.locator('#plex-url'));
    expect(regenerated).not.toBe(url);
    expect((await fetch(url, { method: 'POST', body: plexScrobble(movie.tmdbId, movie.title) })).status).toBe(
      404,
    );
    expect(
      (await fetch(regenerated, { method: 'POST', body: plexScrobble(movie.tmdbId, movie.title) })).status,
    ).toBe(200);

    // Delete: no URL any more, and the last one is refused.
    await page.locator('summary', { hasText: 'Delete Plex URL' }).click();
    await clickAndLoad(page, page.getByRole('button', { name: 'Yes, delete the Plex URL' }));
    await page.getByRole('button', { name: 'Create Plex webhook URL' }).waitFor();
    expect(await page.locator('#plex-url').count()).toBe(0);
    expect(
      (await fetch(regenerated, { method: 'POST', body: plexScrobble(movie.tmdbId, movie.title) })).status,
    ).toBe(404);

    expect(problems).toEqual([]);
    await context.close();
  });

  it('applies the Plex options saved on the page to the next report', async () => {
    await seedUser(world.server, 'noor');
    const movie = await createMovie(
      { db: world.server.db, clock: new TestClock(new Date()) },
      { title: 'Night Train' },
    );
    const { context, page, problems } = await openContext(world.browser, world.server);
    await signIn(page, 'noor');
    await page.goto('/settings/integrations');
    await clickAndLoad(page, page.getByRole('button', { name: 'Create Plex webhook URL' }));
    const url = await textOf(page.locator('#plex-url'));

    // Only another Plex user's reports count: moviebuff's is acknowledged and changes nothing.
    await page.getByLabel('Only reports from these Plex users', { exact: true }).fill('partner');
    await clickAndLoad(page, page.getByRole('button', { name: 'Save Plex options' }));
    expect(await page.getByLabel('Only reports from these Plex users', { exact: true }).inputValue()).toBe(
      'partner',
    );
    expect(await page.getByLabel('Count finished movies as plays', { exact: true }).isChecked()).toBe(true);
    const sent = await fetch(url, { method: 'POST', body: plexScrobble(movie.tmdbId, movie.title) });
    expect(sent.status).toBe(200);
    expect(((await sent.json()) as { outcome: string }).outcome).not.toBe('counted');

    await page.reload();
    const row = page
      .getByRole('table', { name: 'Latest Plex reports' })
      .getByRole('row')
      .filter({ hasText: 'moviebuff' });
    expect(await row.count()).toBe(1);
    expect(await textOf(row)).not.toContain('counted');

    expect(problems).toEqual([]);
    await context.close();
  });
});

browserSuite('browser: the Radarr list', () => {
  const world = browserWorld();

  it('makes a Radarr list URL that serves the watchlist, regenerates it (the old one dies) and deletes it', async () => {
    const user = await seedUser(world.server, 'rex');
    const { value: token } = await world.server.tokens.create(user.id, 'writer', 'never');
    const catalogue = { db: world.server.db, clock: new TestClock(new Date()) };
    const heat = await createMovie(catalogue, { title: 'Heat', tmdb_id: 949, poster_path: null });
    const comets = await createMovie(catalogue, {
      title: 'Paper Comets',
      tmdb_id: 710004,
      poster_path: null,
    });
    const added = await fetch(`${world.server.url}/api/users/rex/watchlist/movies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify([{ serviceId: heat.id }, { serviceId: comets.id }]),
    });
    expect(added.status).toBe(204);
    const { context, page, problems } = await openContext(world.browser, world.server);
    await signIn(page, 'rex');

    await page.goto('/settings/integrations');
    await page.getByRole('heading', { level: 2, name: 'Radarr list', exact: true }).waitFor();
    await clickAndLoad(page, page.getByRole('button', { name: 'Create Radarr list URL' }));
    const url = await textOf(page.locator('#radarr-list-url'));
    expect(url).toMatch(new RegExp(`^${world.server.url}/api/feed/radarr/[0-9a-f-]{36}$`));
    await expectAccessible(page);

    // What Radarr reads: no credential, the whole watchlist.
    const read = await fetch(url);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: number; title: string }[]).map((m) => [m.id, m.title])).toEqual([
      [949, 'Heat'],
      [710004, 'Paper Comets'],
    ]);

    await page.locator('summary', { hasText: 'Regenerate Radarr list URL' }).click();
    await clickAndLoad(page, page.getByRole('button', { name: 'Yes, regenerate the Radarr list URL' }));
    const regenerated = await textOf(page.locator('#radarr-list-url'));
    expect(regenerated).not.toBe(url);
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(regenerated)).status).toBe(200);

    await page.locator('summary', { hasText: 'Delete Radarr list URL' }).click();
    await clickAndLoad(page, page.getByRole('button', { name: 'Yes, delete the Radarr list URL' }));
    await page.getByRole('button', { name: 'Create Radarr list URL' }).waitFor();
    expect(await page.locator('#radarr-list-url').count()).toBe(0);
    const gone = await fetch(regenerated);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ error: 'FeedNotFound', message: 'no feed at this URL' });

    expect(problems).toEqual([]);
    await context.close();
  });
});

browserSuite('browser: backfill from a media server', () => {
  const world = trackerWorld();

  it('connects Plex, backs up past plays and lists the unmatched ones with Find it, without JavaScript (375 px)', async () => {
    await seedUser(world.server, 'ines');
    const plex = await startFakePlex();
    try {
      const { context, page, problems } = await openContext(world.browser, world.server, {
        viewport: { width: 375, height: 800 },
        javaScriptEnabled: false,
      });
      await signIn(page, 'ines');
      await page.goto('/settings/integrations#plex-backfill');
      await page.getByRole('heading', { level: 3, name: 'Past plays from Plex' }).waitFor();
      await expectNoOverflow(page);
      // A server that cannot be reached: the page comes back at the form (375 px: far down the page),
      // with the message in view and the URL kept.
      await page.getByLabel('Plex server URL').fill('http://127.0.0.1:1');
      await page.getByLabel('X-Plex-Token').fill(FAKE_MEDIA_TOKEN);
      await clickAndLoad(page, page.getByRole('button', { name: 'Connect Plex' }));
      const refusal = page.getByRole('alert');
      expect(await textOf(refusal)).toContain('could not be reached');
      const box = await refusal.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.y).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height).toBeLessThanOrEqual(800);
      expect(await page.getByLabel('Plex server URL').inputValue()).toBe('http://127.0.0.1:1');
      expect(await page.content()).not.toContain(FAKE_MEDIA_TOKEN);
      // The refusal's 400, which the browser reports as a console error: the only one expected.
      expect(problems.splice(0)).toEqual([expect.stringContaining('status of 400')]);

      await page.getByLabel('Plex server URL').fill(plex.url);
      await page.getByLabel('X-Plex-Token').fill(FAKE_MEDIA_TOKEN);
      await clickAndLoad(page, page.getByRole('button', { name: 'Connect Plex' }));
      expect(await page.content()).not.toContain(FAKE_MEDIA_TOKEN);

      await clickAndLoad(page, page.getByRole('button', { name: 'Back up past plays from Plex' }));
      await page.getByText('Backfill: Waiting to start').waitFor();
      // The server's runner is not started in tests: the queue is run here.
      expect(await world.server.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
      await page.reload();
      // The fake TMDB knows none of them: every movie is unmatched, each with its Find it.
      const table = page.getByRole('table', { name: 'Unmatched Plex movies' });
      await table.waitFor();
      expect(await table.getByRole('row').filter({ hasText: 'Quiet Orchard' }).count()).toBe(1);
      expect(await table.getByRole('link', { name: /Find it/ }).count()).toBeGreaterThan(0);
      await expectNoOverflow(page);

      // axe runs in the page: checked in a context with JavaScript, in the dark theme too.
      const checked = await openContext(world.browser, world.server, {
        viewport: { width: 375, height: 800 },
        colorScheme: 'dark',
      });
      await signIn(checked.page, 'ines');
      await checked.page.goto('/settings/integrations#plex-backfill');
      await checked.page.getByRole('table', { name: 'Unmatched Plex movies' }).waitFor();
      await expectAccessible(checked.page);
      await expectNoOverflow(checked.page);
      expect(checked.problems).toEqual([]);
      await checked.context.close();

      await page.locator('summary', { hasText: 'Remove Plex connection' }).click();
      await clickAndLoad(page, page.getByRole('button', { name: 'Yes, remove the Plex connection' }));
      await page.getByRole('button', { name: 'Connect Plex' }).waitFor();
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await plex.close();
    }
  });
});
