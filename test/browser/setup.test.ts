import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import {
  browserSuite,
  expectAccessible,
  launchBrowser,
  openContext,
  startServer,
  type TestServer,
} from './browser.js';

browserSuite('browser: the first-run setup page', () => {
  let browser: Browser;
  let server: TestServer;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    await server?.close();
  });

  it("preselects the browser's time zone, not the server's (dark theme, accessible)", async () => {
    const { context, page, problems } = await openContext(browser, server, {
      timezoneId: 'America/Sao_Paulo',
      colorScheme: 'dark',
    });
    await page.goto('/setup');
    expect(await page.getByLabel('Time zone', { exact: true }).inputValue()).toBe('America/Sao_Paulo');
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("without JavaScript the server's TIMEZONE stays selected", async () => {
    const { context, page } = await openContext(browser, server, {
      timezoneId: 'America/Sao_Paulo',
      javaScriptEnabled: false,
    });
    await page.goto('/setup');
    expect(await page.getByLabel('Time zone', { exact: true }).inputValue()).toBe('UTC');
    await context.close();
  });
});
