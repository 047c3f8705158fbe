import { expect, it } from 'vitest';
import { browserSuite, browserWorld, expectAccessible, openContext } from './browser.js';

browserSuite('browser: the first-run setup page', () => {
  const world = browserWorld();

  it("preselects the browser's time zone, not the server's (dark theme, accessible)", async () => {
    const { context, page, problems } = await openContext(world.browser, world.server, {
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
    const { context, page } = await openContext(world.browser, world.server, {
      timezoneId: 'America/Sao_Paulo',
      javaScriptEnabled: false,
    });
    await page.goto('/setup');
    expect(await page.getByLabel('Time zone', { exact: true }).inputValue()).toBe('UTC');
    await context.close();
  });
});
