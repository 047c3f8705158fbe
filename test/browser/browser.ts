import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/schema.js';
import { createTmdbClient } from '../../src/integrations/tmdb/tmdb.client.js';
import { type ApiTokensService, createApiTokensService } from '../../src/modules/auth/api-tokens.service.js';
import { endSignInsOnChange } from '../../src/modules/auth/credentials.js';
import { createUsersService, type User, type UsersService } from '../../src/modules/users/users.service.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTestDatabase } from '../databases.js';
import { FAKE_TMDB_API_KEY, type FakeTmdb, startFakeTmdb } from '../fake-tmdb.js';

/**
 * Browser tests: the real app on a real port, walked through in Debian's Chromium by labels and roles,
 * as a person would. playwright-core only drives the installed browser; it never downloads one.
 */
export const CHROMIUM = '/usr/bin/chromium';

const chromiumMissing = !existsSync(CHROMIUM);
// CI installs Chromium (.ci/run): there, a missing browser is a broken machine, not a reason to skip.
if (chromiumMissing && process.env.CI) {
  throw new Error(`browser tests: ${CHROMIUM} is missing on CI (.ci/run installs the chromium package)`);
}
const SKIP_REASON = `skipped: ${CHROMIUM} is missing (apt-get install chromium to run them)`;
if (chromiumMissing) process.stderr.write(`browser tests ${SKIP_REASON}\n`);

/** `describe` for a browser suite; skipped with the reason in its name where Chromium is not installed. */
export function browserSuite(name: string, body: () => void): void {
  if (chromiumMissing) describe.skip(`${name} (${SKIP_REASON})`, body);
  else describe(name, body);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // A fresh temporary profile per launch (playwright's default); nothing reaches the network.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A suite's world, set up by hooks registered where this is called (in a browserSuite): one browser for
 * the suite, and a fresh server for each test.
 */
export function browserWorld(): { readonly browser: Browser; readonly server: TestServer } {
  return world(false);
}

/** browserWorld with a fake TMDB for the suite, which each test's server searches and adds from. */
export function trackerWorld(): {
  readonly browser: Browser;
  readonly fake: FakeTmdb;
  readonly server: TestServer;
} {
  return world(true) as { browser: Browser; fake: FakeTmdb; server: TestServer };
}

function world(tmdb: boolean) {
  const parts = {} as { browser: Browser; fake?: FakeTmdb; server: TestServer };
  beforeAll(async () => {
    parts.browser = await launchBrowser();
    if (tmdb) parts.fake = await startFakeTmdb();
  });
  afterAll(async () => {
    await parts.browser?.close();
    await parts.fake?.close();
  });
  beforeEach(async () => {
    parts.fake?.reset();
    parts.server = await startServer(
      parts.fake ? { tmdbUrl: parts.fake.url, tmdbImageUrl: parts.fake.imageUrl } : {},
    );
  });
  afterEach(async () => {
    await parts.server?.close();
  });
  return parts;
}

/**
 * A fresh context (cookies, storage) on the server. Every console error, uncaught page error and CSP
 * violation of its pages lands in `problems`: a walk ends by expecting it empty.
 */
export async function openContext(
  browser: Browser,
  server: TestServer,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ baseURL: server.url, ...options });
  context.setDefaultTimeout(10_000);
  const problems: string[] = [];
  if (options.javaScriptEnabled !== false) {
    // Chromium also logs CSP refusals as console errors; the event names the directive for certain.
    await context.addInitScript(
      "document.addEventListener('securitypolicyviolation', (e) => " +
        "console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));",
    );
  }
  // Chromium logs every 4xx/5xx as a console error, pages included: a form answered 400 or a refused
  // sign-in (401) is a page the walk expects and checks itself, not a fault of the page.
  const pages = new Set<string>();
  context.on('request', (request) => {
    if (request.isNavigationRequest()) pages.add(request.url());
  });
  context.on('console', (message) => {
    if (message.type() !== 'error') return;
    const source = message.location().url;
    const text = message.text();
    if (text.startsWith('Failed to load resource') && pages.has(source)) return;
    problems.push(`console error on ${source}: ${text}`);
  });
  context.on('weberror', (error) => problems.push(`page error: ${error.error().message}`));
  const page = await context.newPage();
  return { context, page, problems };
}

export interface TestServer {
  /** http://127.0.0.1:<port>, also the app's APP_URL. */
  url: string;
  app: FastifyInstance;
  db: Kysely<Database>;
  users: UsersService;
  tokens: ApiTokensService;
  close(): Promise<void>;
}

/**
 * The real app (real clock, fresh database of the test engine) listening on 127.0.0.1, with APP_URL set
 * to its own address so that the links it builds (webhook URLs, reset mails) lead back to it.
 */
export async function startServer(
  options: {
    smtpUrl?: string;
    /** A fake TMDB's address (test/fake-tmdb.ts): movies can then be searched and added. */
    tmdbUrl?: string;
    /** The fake's image root (`fake.imageUrl`): posters then load for real. */
    tmdbImageUrl?: string;
    /** More variables for the app's configuration (forward auth's AUTH_PROXY_*, a fake OpenID provider's OIDC_*). */
    env?: Record<string, string>;
  } = {},
): Promise<TestServer> {
  const database = await createTestDatabase();
  try {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const config = loadConfig({
        DATABASE_URL: database.url,
        APP_URL: url,
        HOST: '127.0.0.1',
        PORT: String(port),
        // Pages show TMDB's image URLs (the fake's, when given); the cache has tests of its own.
        IMAGE_CACHE: 'false',
        ...(options.tmdbImageUrl && { TMDB_IMAGE_BASE_URL: options.tmdbImageUrl }),
        ...(options.smtpUrl && { SMTP_URL: options.smtpUrl, MAIL_FROM: 'cinelog@cinelog.test' }),
        ...options.env,
      });
      // No mailer given: the app makes its own from SMTP_URL, as in production.
      const tmdb = options.tmdbUrl
        ? createTmdbClient({
            apiKey: FAKE_TMDB_API_KEY,
            baseUrl: options.tmdbUrl,
            timeoutMs: 2000,
            maxRetries: 1,
            retryBaseDelayMs: 1,
          })
        : null;
      const app = await buildApp({ config, db: database.db, tmdb, logger: false });
      try {
        await app.listen({ port, host: '127.0.0.1' });
      } catch (error) {
        await app.close();
        // Another process took the port between finding it free and listening: try another.
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 5) continue;
        throw error;
      }
      return {
        url,
        app,
        db: database.db,
        users: createUsersService({
          credentials: endSignInsOnChange,
          db: database.db,
          clock: systemClock,
          defaultTimezone: 'UTC',
        }),
        tokens: createApiTokensService({ db: database.db, clock: systemClock }),
        async close() {
          await app.close();
          await database.destroy();
        },
      };
    }
  } catch (error) {
    await database.destroy();
    throw error;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export const PASSWORD = 'correct horse battery';

/** An account made through the service (walks that are not about setup start from one). */
export async function seedUser(
  server: TestServer,
  name: string,
  options: { isAdmin?: boolean } = {},
): Promise<User> {
  return server.users.create({
    name,
    email: `${name}@example.test`,
    password: PASSWORD,
    isAdmin: options.isAdmin ?? false,
  });
}

/** Signs in on /login as a person would, and waits for the signed-in page. */
export async function signIn(page: Page, login: string, password = PASSWORD): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('User name or e-mail', { exact: true }).fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await clickAndLoad(page, page.getByRole('button', { name: 'Sign in', exact: true }));
  await page.getByText('Signed in as').waitFor();
}

/**
 * Clicks (a submit button, a link) and waits until the page it leads to has loaded: after that, the
 * page is static server-rendered HTML, so what it shows can be read at once.
 */
export async function clickAndLoad(page: Page, target: Locator): Promise<void> {
  const loaded = page.waitForEvent('load');
  await target.click();
  await loaded;
}

/** The visible text of an element, whitespace collapsed. */
export async function textOf(target: Locator): Promise<string> {
  return (await target.innerText()).replace(/\s+/g, ' ').trim();
}

/** A call of the API with a personal token, as a script would make it. */
export function apiAs(server: TestServer, token: string, path = '/api/authentication/token') {
  return fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is now (colour contrast included); fails with
 * each violation's rule and the elements it found. Run after the page shows what the test looks at
 * (the browser's colour scheme decides which theme is checked). Evaluated through the debugging
 * protocol, so the page's CSP ('self') stays as it is.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(options: object): Promise<{ violations: unknown[] }> } }
    ).axe;
    const result = await axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations as { id: string; help: string; nodes: { target: string[] }[] }[];
  });
  const report = violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
  );
  if (report.length > 0) throw new Error(`accessibility violations on ${page.url()}:\n${report.join('\n')}`);
}

/** Every <img> in the page's main part has loaded (a broken one has no natural width); how many. */
export async function expectImagesLoaded(page: Page): Promise<number> {
  // Lazy images below the fold load now, so each one is checked.
  await page.evaluate(
    "document.querySelectorAll('main img').forEach((image) => { image.loading = 'eager'; })",
  );
  await imagesSettled(page);
  const images = (await page.evaluate(
    "[...document.querySelectorAll('main img')].map((image) => ({ src: image.src, width: image.naturalWidth }))",
  )) as { src: string; width: number }[];
  expect(images.filter((image) => image.width === 0)).toEqual([]);
  return images.length;
}

/** Nothing wider than the viewport: no sideways scrolling on a phone. */
export const expectNoOverflow = async (page: Page) =>
  expect(
    await page.evaluate('document.documentElement.scrollWidth'),
    `the width of ${page.url()}`,
  ).toBeLessThanOrEqual(page.viewportSize()!.width);

/**
 * Waits until every <img> of the page's main part has loaded or failed. One evaluation of a promise
 * (as the debugger evaluates it, which the page's CSP allows), not `waitForFunction` with a string:
 * Playwright polls that with eval, which a page with `script-src 'self'` refuses as soon as the first
 * check is false (on a busy machine).
 */
export async function imagesSettled(page: Page): Promise<void> {
  // Lazy images below the fold load now, so each one is waited for.
  await page.evaluate(
    "Promise.all([...document.querySelectorAll('main img')].map((image) => { image.loading = 'eager'; " +
      'return image.complete ? null : ' +
      "new Promise((done) => { image.addEventListener('load', done, { once: true }); " +
      "image.addEventListener('error', done, { once: true }); }); }))",
  );
}

/** Stores the fake TMDB's movies through the API with `token`; their service ids, in order. */
export async function addMovies(
  server: TestServer,
  token: string,
  tmdbIds: readonly number[],
): Promise<number[]> {
  const ids: number[] = [];
  for (const providerId of tmdbIds) {
    const res = await fetch(`${server.url}/api/movies/add`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ providerId }),
    });
    expect(res.status).toBeLessThan(300);
    ids.push(((await res.json()) as { serviceId: number }).serviceId);
  }
  return ids;
}
