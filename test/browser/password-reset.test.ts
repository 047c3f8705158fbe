import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type FakeSmtp, linkIn, startFakeSmtp } from '../fake-smtp.js';
import {
  apiAs,
  browserSuite,
  clickAndLoad,
  launchBrowser,
  openContext,
  PASSWORD,
  seedUser,
  signIn,
  startServer,
  type TestServer,
  textOf,
} from './browser.js';

const NEW_PASSWORD = 'a brand new passphrase';

browserSuite('browser: forgot password', () => {
  let browser: Browser;
  let smtp: FakeSmtp;
  let server: TestServer;

  beforeAll(async () => {
    browser = await launchBrowser();
    smtp = await startFakeSmtp();
  });
  afterAll(async () => {
    await browser?.close();
    await smtp?.close();
  });
  beforeEach(async () => {
    server = await startServer({ smtpUrl: smtp.url });
  });
  afterEach(async () => {
    await server?.close();
  });

  it('mails a link, sets a new password through it, revokes every token and sign-in of the account', async () => {
    const user = await seedUser(server, 'rosa');
    const oldTokens = await Promise.all(
      ['phone', 'laptop', 'media center'].map(
        async (name) => (await server.tokens.create(user.id, name, 'never')).value,
      ),
    );
    const bystander = await seedUser(server, 'tom');
    const { value: bystanderToken } = await server.tokens.create(bystander.id, 'tom script', 'never');
    for (const token of oldTokens) expect((await apiAs(server, token)).status).toBe(200);

    // Signed in elsewhere: that sign-in ends with the reset.
    const elsewhere = await openContext(browser, server);
    await signIn(elsewhere.page, 'rosa');

    const { context, page, problems } = await openContext(browser, server);
    await page.goto('/login');
    await clickAndLoad(page, page.getByRole('link', { name: 'Forgot your password?' }));
    await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
    await page.getByLabel('E-mail', { exact: true }).fill('Rosa@Example.test');
    await clickAndLoad(page, page.getByRole('button', { name: 'Send reset link' }));
    expect(await textOf(page.getByRole('status'))).toBe(
      'If an account has this address, we have sent it a link to set a new password. The link works once, for one hour.',
    );

    const mail = await smtp.waitForMail('rosa@example.test');
    const link = linkIn(mail);
    expect(link.startsWith(`${server.url}/reset-password/`)).toBe(true);

    // The link's secret leaves the address bar at once.
    await page.goto(link);
    expect(page.url()).toBe(`${server.url}/reset-password`);
    await page.getByRole('heading', { level: 1, name: 'Set a new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password', { exact: true }).fill(NEW_PASSWORD);
    await clickAndLoad(page, page.getByRole('button', { name: 'Set new password' }));
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await textOf(page.getByRole('status'))).toBe(
      'Your new password is set. All API tokens and sign-ins of the account were revoked.',
    );

    // Every old token of the account answers 401; another account's is untouched.
    for (const token of oldTokens) expect((await apiAs(server, token)).status).toBe(401);
    expect((await apiAs(server, bystanderToken)).status).toBe(200);
    // The other sign-in is over.
    await elsewhere.page.goto('/settings/tokens');
    expect(new URL(elsewhere.page.url()).pathname).toBe('/login');
    expect(elsewhere.problems).toEqual([]);
    await elsewhere.context.close();

    // The old password no longer signs in; the new one does.
    await page.getByLabel('User name or e-mail', { exact: true }).fill('rosa');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign in' }));
    expect(await textOf(page.getByRole('alert'))).toBe(
      'The name or e-mail and the password do not match an account.',
    );
    await signIn(page, 'rosa', NEW_PASSWORD);
    expect(await textOf(page.getByRole('banner'))).toContain('Signed in as rosa');

    // The link worked once.
    await page.goto(link);
    await page.getByText('This link is no longer valid').waitFor();
    await page.getByRole('link', { name: /new link/i }).waitFor();
    expect(await page.getByLabel('New password', { exact: true }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('says e-mail is not set up, and names the command, where SMTP_URL is not set', async () => {
    const withoutMail = await startServer();
    try {
      const { context, page, problems } = await openContext(browser, withoutMail);
      await page.goto('/forgot-password');
      await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
      expect(await textOf(page.getByRole('main'))).toContain('cinelog user reset-password');
      expect(await page.getByRole('button', { name: 'Send reset link' }).count()).toBe(0);
      expect(await page.getByLabel('E-mail', { exact: true }).count()).toBe(0);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await withoutMail.close();
    }
  });
});
