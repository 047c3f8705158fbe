import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type FakeOidc, startFakeOidc } from '../fake-oidc.js';
import {
  browserSuite,
  clickAndLoad,
  expectAccessible,
  expectNoOverflow,
  launchBrowser,
  openContext,
  PASSWORD,
  seedUser,
  signIn,
  startServer,
  type TestServer,
  textOf,
} from './browser.js';

// Single sign-on in a real browser: the sign-in page's button, the fake provider's redirect back, the
// account's section with its link and unlink; OIDC_ONLY's sign-in page.

browserSuite('browser: single sign-on', () => {
  let browser: Browser;
  let fake: FakeOidc;
  let server: TestServer;
  beforeAll(async () => {
    browser = await launchBrowser();
    fake = await startFakeOidc();
  });
  afterAll(async () => {
    await browser?.close();
    await fake?.close();
  });
  afterEach(async () => {
    await server?.close();
  });

  for (const [width, colorScheme] of [
    [1280, 'light'],
    [375, 'dark'],
  ] as const) {
    it(`signs up through the provider, then links and unlinks another account (${width} px, ${colorScheme})`, async () => {
      server = await startServer({ env: fake.env({ OIDC_AUTO_REGISTER: 'true' }) });
      await seedUser(server, 'admin', { isAdmin: true });
      await seedUser(server, 'bob');
      const { context, page, problems } = await openContext(browser, server, {
        viewport: { width, height: 900 },
        colorScheme,
      });
      const check = async () => {
        await expectAccessible(page);
        await expectNoOverflow(page);
      };

      fake.user = {
        sub: `new-${width}`,
        email: `new${width}@example.test`,
        email_verified: true,
        preferred_username: 'newcomer',
      };
      await page.goto('/login');
      await check();
      await clickAndLoad(page, page.getByRole('button', { name: 'Sign in with SSO' }));
      await page.getByText('Signed in as newcomer').waitFor();
      expect(await textOf(page.locator('main'))).toContain('Welcome, newcomer');
      await check();

      // Bob links his account from Settings → Account, in a browser of his own.
      const bob = await openContext(browser, server, { viewport: { width, height: 900 }, colorScheme });
      await signIn(bob.page, 'bob', PASSWORD);
      await bob.page.goto('/settings/account');
      const section = bob.page.getByRole('region', { name: 'Single sign-on' });
      await section.getByText('not linked').waitFor();
      fake.user = { sub: `bob-${width}`, email: 'bob-elsewhere@example.test', email_verified: true };
      await clickAndLoad(bob.page, section.getByRole('button', { name: 'Link single sign-on' }));
      await bob.page.getByText('Single sign-on is linked to your account.').waitFor();
      expect(await textOf(section)).toContain('as bob-elsewhere@example.test');
      await expectAccessible(bob.page);
      await expectNoOverflow(bob.page);

      // Unlinking asks first.
      await section.getByText('Unlink', { exact: true }).click();
      await section.getByText('Unlink single sign-on?').waitFor();
      await clickAndLoad(bob.page, section.getByRole('button', { name: 'Yes, unlink' }));
      await bob.page.getByText('Single sign-on is unlinked from your account.').waitFor();
      await section.getByText('not linked').waitFor();

      expect(problems).toEqual([]);
      expect(bob.problems).toEqual([]);
      await bob.context.close();
      await context.close();
    });
  }

  it('shows only the button with OIDC_ONLY, and a clear page for a refused sign-in (375 px)', async () => {
    server = await startServer({
      env: fake.env({ OIDC_ONLY: 'true', OIDC_BUTTON_LABEL: 'Sign in with Pocket ID' }),
    });
    await seedUser(server, 'admin', { isAdmin: true });
    const { context, page, problems } = await openContext(browser, server, {
      viewport: { width: 375, height: 800 },
    });
    await page.goto('/login');
    expect(await page.getByLabel('Password', { exact: true }).count()).toBe(0);
    await expectAccessible(page);
    fake.user = { sub: 'stranger', email: 'stranger@example.test', email_verified: true };
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign in with Pocket ID' }));
    await page.getByRole('heading', { level: 1, name: 'Single sign-on did not work' }).waitFor();
    expect(await textOf(page.getByRole('alert'))).toContain('There is no account here for this sign-in');
    await expectAccessible(page);
    await expectNoOverflow(page);
    expect((await context.cookies()).some((cookie) => cookie.name === 'cinelog_session')).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });
});
