import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, launchBrowser, openContext, startServer, type TestServer } from './browser.js';

browserSuite('the API documentation', () => {
  let browser: Browser;
  let server: TestServer;
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startServer();
  });
  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('renders the endpoints under its content security policy, with no violation', async () => {
    const { context, page, problems } = await openContext(browser, server);
    const response = await page.goto('/docs/api');
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByText('/users/{username}/history/movies').first().waitFor();
    await page.getByText('cinelog API').first().waitFor();
    expect(problems).toEqual([]);
    // A way back to the app.
    await page.getByRole('link', { name: 'Back to cinelog' }).click();
    await page.waitForURL((url) => url.pathname === '/setup' || url.pathname === '/login');
    await context.close();
  });
});
