import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  browserSuite,
  clickAndLoad,
  expectAccessible,
  expectNoOverflow,
  launchBrowser,
  openContext,
  seedUser,
  startServer,
  type TestServer,
  textOf,
} from './browser.js';

/**
 * A sign-in proxy in front of cinelog, as Authelia or Authentik behind nginx would be: it drops any
 * Remote-User the browser sends and names `user` itself (the browser cannot set the peer address).
 */
function signInProxy(target: string, user: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, 'remote-user': user };
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

browserSuite('browser: signing in at a reverse proxy (forward auth)', () => {
  let browser: Browser;
  let server: TestServer | undefined;
  let proxy: { url: string; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());
  afterEach(async () => {
    await proxy?.close();
    await server?.close();
  });

  it('signs the named user in on the first page; forms work with that session', async () => {
    server = await startServer({
      env: { AUTH_PROXY_HEADER: 'Remote-User', AUTH_PROXY_TRUSTED: '127.0.0.1' },
    });
    await seedUser(server, 'bob');
    proxy = await signInProxy(server.url, 'bob');
    const { context, page, problems } = await openContext(
      browser,
      { ...server, url: proxy.url },
      { viewport: { width: 1280, height: 800 } },
    );
    await page.goto('/');
    expect(await textOf(page.locator('body'))).toContain('Signed in as bob');
    await expectAccessible(page);
    // At 375 px in the dark theme too: signed in, nothing wider than the phone.
    const phone = await openContext(
      browser,
      { ...server, url: proxy.url },
      { viewport: { width: 375, height: 800 }, colorScheme: 'dark' },
    );
    await phone.page.goto('/');
    expect(await textOf(phone.page.locator('body'))).toContain('Signed in as bob');
    await expectAccessible(phone.page);
    await expectNoOverflow(phone.page);
    await phone.context.close();

    await page.goto('/settings/tokens');
    await page.getByLabel('Name', { exact: true }).fill('Kodi');
    await clickAndLoad(page, page.getByRole('button', { name: 'Create token' }));
    await page.getByRole('heading', { level: 2, name: 'Your new token' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a clear page for a name without an account', async () => {
    server = await startServer({
      env: { AUTH_PROXY_HEADER: 'Remote-User', AUTH_PROXY_TRUSTED: '127.0.0.1' },
    });
    await seedUser(server, 'ada', { isAdmin: true });
    proxy = await signInProxy(server.url, 'carol');
    const { context, page } = await openContext(
      browser,
      { ...server, url: proxy.url },
      { viewport: { width: 375, height: 800 }, colorScheme: 'dark' },
    );
    const answer = await page.goto('/');
    expect(answer?.status()).toBe(403);
    expect(await textOf(page.getByRole('alert'))).toContain(
      'There is no cinelog account named carol: ask the administrator',
    );
    await expectAccessible(page);
    await expectNoOverflow(page);
    await context.close();
  });
});
