/**
 * Adversarial, property-based tests of the web app's forms and pages with parameters: sign-in,
 * forgot-password, setup and sign-up, account, tokens, integrations, users, from their own schemas,
 * sent with the browser's CSRF token (mostly) so that the handlers are really reached, by nobody,
 * an administrator and a user. Seeded: `FC_SEED=<seed>` replays the run (test/adversarial/fc.ts,
 * docs/testing.md).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionsService, type SessionsService } from '../../src/modules/auth/sessions.service.js';
import { WebClient } from '../web-client.js';
import { expectPageAnswer, expectStatus } from './expectations.js';
import { announceSeed, checkProperty, runs, timeoutFor } from './fc.js';
import { type BrowserName, CSRF, formHints, formRequest, isFormTarget } from './form-requests.js';
import { createWorld, describeRequest, printTallies, tally, type World } from './world.js';

const RUNS = 1_200;
const ORIGIN = 'http://cinelog.test';
/** The one form that checks the sign-in before it reads its (multipart) body. */
const UPLOAD_ROUTE = 'POST /settings/data/imports';

interface Browser {
  cookies: Record<string, string>;
  csrf: string;
  userId: number | null;
}

describe('adversarial: the forms', () => {
  let world: World;
  let sessions: SessionsService;
  const browsers = new Map<BrowserName, Browser>();

  beforeAll(async () => {
    announceSeed('forms');
    world = await createWorld({ env: { ENABLE_REGISTRATION: 'true' }, mailer: true });
    sessions = createSessionsService({ db: world.ctx.db, clock: world.ctx.clock });
    for (const [name, userId] of [
      ['anonymous', null],
      ['alice', world.alice.user.id],
      ['bob', world.bob.user.id],
    ] as const) {
      const client = new WebClient(world.ctx.app);
      if (userId !== null) client.cookies.set('cinelog_session', (await sessions.start(userId, false)).value);
      await client.get('/forgot-password');
      expect(client.csrfToken()).not.toBe('');
      browsers.set(name, { cookies: Object.fromEntries(client.cookies), csrf: client.csrfToken(), userId });
    }
    world.guard.invalidate();
  });
  afterAll(async () => {
    printTallies('forms');
    await world.close();
  });

  /** A browser whose sign-in a form ended (sign-out, a new sign-in, a password change) signs in again. */
  const stillSignedIn = async (browser: Browser) => {
    if (browser.userId === null) return;
    if (await sessions.resolve(browser.cookies.cinelog_session)) return;
    browser.cookies.cinelog_session = (await sessions.start(browser.userId, false)).value;
    world.guard.invalidate();
  };

  it(
    'answers random forms without a 5xx, with an HTML page or a redirect to this site, changing nothing when it refuses',
    async () => {
      const routes = world.routes.filter(isFormTarget);
      expect(routes.map((route) => `${route.method} ${route.url}`)).toEqual(
        expect.arrayContaining([
          'POST /login',
          'POST /forgot-password',
          'POST /settings/tokens',
          'GET /login',
        ]),
      );
      const tokenIds = (await world.ctx.db.selectFrom('api_tokens').select('id').execute()).map(
        (row) => row.id,
      );
      const hints = formHints(tokenIds);
      await checkProperty(
        'forms',
        // Pages (GET) cost no password hashing: twice as many of them.
        fc.oneof(
          ...routes.map((route) => ({
            weight: route.method === 'GET' ? 2 : 1,
            arbitrary: formRequest(route, hints),
          })),
        ),
        async (generated) => {
          const browser = browsers.get(generated.browser)!;
          await stillSignedIn(browser);
          const other = generated.browser === 'alice' ? browsers.get('bob')! : browsers.get('alice')!;
          const token = generated.csrf === 'wrong' ? other.csrf : browser.csrf;
          const request = {
            ...generated.request,
            ...(typeof generated.request.payload === 'string' && {
              payload: generated.request.payload.replaceAll(CSRF, token),
            }),
            cookies: browser.cookies,
          };
          const label = `${describeRequest(request)} as ${generated.browser}`;
          const mailsBefore = world.mails.length;
          const startedAt = performance.now();
          const answer = await world.guard.around(label, () => world.inject(request));
          tally(generated.route, answer, startedAt);
          expectPageAnswer(label, answer, ORIGIN);
          // Every state-changing form is checked for its CSRF token before anything reads it (only a body
          // too large to be read at all may be refused first). The import upload is refused to a
          // signed-out browser before its body is read at all (a stranger never makes the server read
          // up to 32 MB): the sign-in page, before the token inside the body is looked at.
          const unread =
            answer.statusCode === 413 ||
            (generated.route === UPLOAD_ROUTE && generated.browser === 'anonymous');
          if (generated.route === UPLOAD_ROUTE && generated.browser === 'anonymous') {
            expectStatus(label, answer, 303);
          }
          if (
            generated.request.method !== 'GET' &&
            generated.csrf !== 'valid' &&
            generated.readable &&
            !unread
          ) {
            expectStatus(label, answer, 403);
          }
          await settleMail(generated.route, request.payload, answer.statusCode, mailsBefore);
        },
        runs(RUNS),
      );
    },
    timeoutFor(RUNS, 120),
  );

  /**
   * A forgot-password request writes its link after the answer, when the address is known: waits for
   * its mail, so that the next request's "before" sees the link. The address is read from the body as
   * a form or as JSON (the page takes both); for any other address, a short grace.
   */
  async function settleMail(route: string, payload: unknown, status: number, mailsBefore: number) {
    if (route !== 'POST /forgot-password' || status !== 303) return;
    const text = typeof payload === 'string' ? payload : '';
    const candidates = new URLSearchParams(text).getAll('email');
    try {
      const email = (JSON.parse(text) as { email?: unknown }).email;
      if (typeof email === 'string') candidates.push(email);
    } catch {
      // Not JSON.
    }
    const emails = candidates.map((email) => email.trim().toLowerCase()).filter((email) => email !== '');
    const known =
      emails.length > 0 &&
      (await world.ctx.db.selectFrom('users').select('id').where('email', 'in', emails).executeTakeFirst());
    const patience = known ? 5_000 : 50;
    for (let waited = 0; world.mails.length === mailsBefore && waited < patience; waited += 5) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    world.guard.invalidate();
  }
});
