import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { displayPrefixOf } from '../../src/modules/auth/token-format.js';
import {
  apiAs,
  browserSuite,
  browserWorld,
  clickAndLoad,
  expectAccessible,
  openContext,
  PASSWORD,
  seedUser,
  signIn,
  textOf,
} from './browser.js';

/** Creates a token on /settings/tokens and reads its value from the one page that shows it. */
async function createToken(page: Page, name: string, expiry = 'In 30 days'): Promise<string> {
  await page.goto('/settings/tokens');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Expires', { exact: true }).selectOption({ label: expiry });
  await clickAndLoad(page, page.getByRole('button', { name: 'Create token' }));
  await page.getByRole('heading', { level: 2, name: 'Your new token' }).waitFor();
  // The contract puts the value in <code id="new-token">, the element the Copy button copies.
  return textOf(page.locator('#new-token'));
}

const COLUMNS = ['Name', 'Prefix', 'Created', 'Last used', 'Expires', 'State'];
/** A row's cells by the contract's column names. */
const cellsByColumn = (cells: string[]) =>
  Object.fromEntries(COLUMNS.map((column, index) => [column, cells[index]?.trim()]));

const tokenRow = (page: Page, name: string) =>
  page.getByRole('table', { name: 'Your tokens' }).getByRole('row').filter({ hasText: name });

browserSuite('browser: first run, sign-in and API tokens', () => {
  const world = browserWorld();

  it('sets up the administrator, signs out and in, creates a token, uses it on the API, revokes it: 401', async () => {
    const { context, page, problems } = await openContext(world.browser, world.server, {
      permissions: ['clipboard-read', 'clipboard-write'],
    });

    // First run: `/` leads to the setup page.
    await page.goto('/');
    expect(new URL(page.url()).pathname).toBe('/setup');
    await expectAccessible(page);
    await page.getByLabel('User name', { exact: true }).fill('ada');
    await page.getByLabel('E-mail', { exact: true }).fill('ada@example.test');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat the password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Time zone', { exact: true }).selectOption('Europe/Berlin');
    await clickAndLoad(page, page.getByRole('button', { name: 'Create the administrator account' }));
    expect(await textOf(page.getByRole('banner'))).toContain('Signed in as ada');
    const admin = await world.server.users.findByName('ada');
    expect(admin).toMatchObject({ isAdmin: true, email: 'ada@example.test', timezone: 'Europe/Berlin' });

    await clickAndLoad(page, page.getByRole('button', { name: 'Sign out' }));
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.getByText('Signed in as').count()).toBe(0);
    await expectAccessible(page);
    // The setup page is gone for good once an account exists.
    await page.goto('/setup');
    expect(new URL(page.url()).pathname).toBe('/login');

    await signIn(page, 'ada@example.test');

    // Create a token: its value is shown once, on the answer to the form.
    const token = await createToken(page, 'backup script', 'In 90 days');
    expect(token).toMatch(/^\S{40,}$/);
    await page.getByText('Copy it now: it will not be shown again.').waitFor();
    expect(page.url()).toBe(`${world.server.url}/settings/tokens`);
    expect((await context.cookies()).some((cookie) => cookie.value.includes(token))).toBe(false);
    // The copy button (app.js, allowed by the CSP) puts exactly the value on the clipboard.
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
    await expectAccessible(page);

    const table = page.getByRole('table', { name: 'Your tokens' });
    expect((await table.getByRole('columnheader').allInnerTexts()).slice(0, 6)).toEqual(COLUMNS);
    const row = tokenRow(page, 'backup script');
    expect(await row.count()).toBe(1);
    expect(cellsByColumn(await row.getByRole('cell').allInnerTexts())).toMatchObject({
      Prefix: expect.stringContaining(displayPrefixOf(token)),
      State: 'active',
    });
    const unused = cellsByColumn(await row.getByRole('cell').allInnerTexts())['Last used'];

    // It works on the API at once.
    const before = await apiAs(world.server, token);
    expect(before.status).toBe(200);
    expect(await before.json()).toMatchObject({ user: { name: 'ada', isAdmin: true } });

    // Never shown again; the table now tells it was used.
    await page.goto('/settings/tokens');
    await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Your new token' }).count()).toBe(0);
    expect(await page.content()).not.toContain(token);
    const used = cellsByColumn(await tokenRow(page, 'backup script').getByRole('cell').allInnerTexts());
    expect(used['Last used']).not.toBe(unused);

    // Revoke it on the page: the API answers 401 at once.
    await clickAndLoad(page, page.getByRole('button', { name: 'Revoke token backup script' }));
    expect(await textOf(tokenRow(page, 'backup script'))).toContain('revoked');
    expect(await page.getByRole('button', { name: 'Revoke token backup script' }).count()).toBe(0);
    const after = await apiAs(world.server, token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toBe('Bearer');

    // The other settings pages an administrator has pass the same accessibility rules (light theme).
    for (const path of [
      '/settings/account',
      '/settings/status',
      '/settings/users',
      '/settings/integrations',
    ]) {
      await page.goto(path);
      await expectAccessible(page);
    }

    expect(problems).toEqual([]);
    await context.close();
  });

  it('revokes all tokens through the confirmation page, after a cancel that changes nothing', async () => {
    const other = await seedUser(world.server, 'grace');
    const { value: othersToken } = await world.server.tokens.create(other.id, 'grace laptop', 'never');
    await seedUser(world.server, 'linus');
    const { context, page, problems } = await openContext(world.browser, world.server);
    await signIn(page, 'linus');
    const first = await createToken(page, 'phone', 'Never');
    const second = await createToken(page, 'laptop', 'In 365 days');

    const revokeAll = page
      .getByRole('link', { name: 'Revoke all tokens' })
      .or(page.getByRole('button', { name: 'Revoke all tokens' }));
    await page.goto('/settings/tokens');
    await clickAndLoad(page, revokeAll);
    await page.getByRole('heading', { level: 1, name: 'Revoke all tokens?' }).waitFor();
    expect(await textOf(page.getByRole('main'))).toMatch(/\b2\b/);
    await clickAndLoad(page, page.getByRole('link', { name: 'Cancel' }));
    expect(new URL(page.url()).pathname).toBe('/settings/tokens');
    expect((await apiAs(world.server, first)).status).toBe(200);
    expect((await apiAs(world.server, second)).status).toBe(200);

    await clickAndLoad(page, revokeAll);
    await clickAndLoad(page, page.getByRole('button', { name: 'Yes, revoke all tokens' }));
    expect(new URL(page.url()).pathname).toBe('/settings/tokens');
    expect(await textOf(tokenRow(page, 'phone'))).toContain('revoked');
    expect(await textOf(tokenRow(page, 'laptop'))).toContain('revoked');
    expect((await apiAs(world.server, first)).status).toBe(401);
    expect((await apiAs(world.server, second)).status).toBe(401);
    // Only this account's tokens: another user's stay active, and never appear on this page.
    expect((await apiAs(world.server, othersToken)).status).toBe(200);
    expect(await tokenRow(page, 'grace laptop').count()).toBe(0);

    expect(problems).toEqual([]);
    await context.close();
  });

  it('signs in, creates and revokes a token without JavaScript', async () => {
    await seedUser(world.server, 'nojs');
    const { context, page, problems } = await openContext(world.browser, world.server, {
      javaScriptEnabled: false,
    });
    await signIn(page, 'nojs');
    const token = await createToken(page, 'cron job');
    // Without the script the Copy button stays hidden: the value is selected by hand.
    expect(await page.getByRole('button', { name: 'Copy', exact: true }).count()).toBe(0);
    expect((await apiAs(world.server, token)).status).toBe(200);
    await clickAndLoad(page, page.getByRole('button', { name: 'Revoke token cron job' }));
    expect(await textOf(tokenRow(page, 'cron job'))).toContain('revoked');
    expect((await apiAs(world.server, token)).status).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps the settings pages within a 375 px wide screen, accessible in the dark theme', async () => {
    await seedUser(world.server, 'narrow', { isAdmin: true });
    const { context, page, problems } = await openContext(world.browser, world.server, {
      viewport: { width: 375, height: 740 },
      colorScheme: 'dark',
    });
    await signIn(page, 'narrow');
    // How far the page reaches past the screen's right edge (0: no horizontal scrolling).
    const overflow = async (path: string, status = 200) => ({
      path,
      status,
      overflow: await page.evaluate(
        'Math.max(document.body.scrollWidth, document.documentElement.scrollWidth) - document.documentElement.clientWidth',
      ),
    });
    const results: { path: string; status: number; overflow: unknown }[] = [];
    const check = async (path: string, status = 200) => {
      results.push(await overflow(path, status));
      await expectAccessible(page);
    };
    // The longest things these pages show: a new token's value, a webhook URL.
    await createToken(page, 'a token with a rather long descriptive name for the narrow screen');
    await check('/settings/tokens (new token)');
    await page.goto('/settings/integrations');
    await clickAndLoad(page, page.getByRole('button', { name: 'Create Plex webhook URL' }));
    await check('/settings/integrations (Plex URL)');
    for (const path of [
      '/settings/account',
      '/settings/tokens',
      '/settings/users',
      '/settings/status',
      '/settings/tokens/revoke-all',
    ]) {
      const response = await page.goto(path);
      await check(path, response?.status());
    }
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign out' }));
    for (const path of ['/login', '/forgot-password']) {
      const response = await page.goto(path);
      await check(path, response?.status());
    }
    expect(results).toEqual(results.map(({ path }) => ({ path, status: 200, overflow: 0 })));
    expect(problems).toEqual([]);
    await context.close();
  });
});
