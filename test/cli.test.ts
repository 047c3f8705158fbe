import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { openDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { databaseHitCounter } from '../src/db/rate-limit-store.js';
import { createTmdbClient } from '../src/integrations/tmdb/tmdb.client.js';
import { createApiTokensService } from '../src/modules/auth/api-tokens.service.js';
import { endSignInsOnChange } from '../src/modules/auth/credentials.js';
import { secretKeySource } from '../src/modules/auth/secret-box.js';
import { createSessionsService } from '../src/modules/auth/sessions.service.js';
import { createTwoFactorService } from '../src/modules/auth/two-factor.service.js';
import { createLibrary } from '../src/modules/library/library.service.js';
import { statisticsFollowCatalog } from '../src/modules/library/statistics-aggregates.js';
import { createMoviesService } from '../src/modules/movies/movies.service.js';
import { verifyPassword } from '../src/modules/users/passwords.js';
import { createUsersService } from '../src/modules/users/users.service.js';
import { UnauthenticatedError } from '../src/shared/errors.js';
import { gzipped, ratingsTsv } from './fake-imdb.js';
import { FAKE_TMDB_API_KEY, FAKE_TMDB_MOVIES, type FakeTmdb, startFakeTmdb } from './fake-tmdb.js';
import { createMovie, createTestDatabase, TestClock } from './harness.js';
import { codeFor, TEST_SECRET_KEY } from './two-factor.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN_PATTERN = /^cinelog_[A-Za-z0-9_-]{43}$/;
const DAY_MS = 86_400_000;

describe('cinelog command line', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let clock: TestClock;

  beforeEach(async () => {
    database = await createTestDatabase();
    clock = new TestClock(new Date('2024-06-15T12:00:00.000Z'));
  });
  afterEach(async () => {
    await database.destroy();
  });

  /** Runs one command line in-process against the test database; no TMDB configuration at all. */
  async function cli(args: string[], env: Record<string, string> = {}) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      env: { DATABASE_URL: database.url, ...env },
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      clock,
    });
    return { code, stdout, stderr, lastLine: stdout.trimEnd().split('\n').at(-1) };
  }

  const users = () =>
    createUsersService({ credentials: endSignInsOnChange, db: database.db, clock, defaultTimezone: 'UTC' });
  const tokens = () => createApiTokensService({ db: database.db, clock });
  const sessions = () => createSessionsService({ db: database.db, clock });
  const twoFactor = () =>
    createTwoFactorService({
      db: database.db,
      clock,
      keys: secretKeySource({ secretKey: TEST_SECRET_KEY, databaseUrl: database.url }),
      hits: databaseHitCounter(database.db, clock),
    });

  /** Turns two-factor sign-in on for a user, as the account page does. */
  async function turnOnTwoFactor(user: { id: number; name: string }) {
    const { secret } = await twoFactor().begin(user);
    await twoFactor().confirm(user.id, codeFor(secret, clock.now()));
    expect(await twoFactor().isOn(user.id)).toBe(true);
  }

  async function createAlice(...extra: string[]) {
    const result = await cli([
      'user',
      'create',
      '--name',
      'alice',
      '--email',
      'Alice@Example.test',
      '--password',
      'correct horse',
      ...extra,
    ]);
    expect(result.code).toBe(0);
    return (await users().findByName('alice'))!;
  }

  async function createToken(label: string, ...extra: string[]) {
    const result = await cli(['token', 'create', '--user', 'alice', '--name', label, ...extra]);
    expect(result.code, result.stderr).toBe(0);
    return result.lastLine!;
  }

  const rejects = (value: string) =>
    expect(tokens().authenticate(value)).rejects.toThrow(UnauthenticatedError);

  describe('user create', () => {
    it('creates the user and prints its name alone on stdout', async () => {
      const result = await cli([
        'user',
        'create',
        '--name',
        'alice',
        '--email',
        'Alice@Example.test',
        '--password',
        'correct horse',
      ]);
      expect(result).toMatchObject({ code: 0, stdout: 'alice\n' });
      expect(result.stderr).toBe(
        'created user "alice" (id 1, not admin, e-mail alice@example.test, time zone UTC, privacy users, watchlist auto-remove on, ratings as stars, public profile off)\n',
      );
      const alice = await users().findByName('alice');
      expect(alice).toMatchObject({
        id: 1,
        name: 'alice',
        email: 'alice@example.test',
        isAdmin: false,
        privacy: 'users',
        timezone: 'UTC',
      });
      const row = await database.db
        .selectFrom('users')
        .select('password_hash')
        .where('name', '=', 'alice')
        .executeTakeFirstOrThrow();
      expect(await verifyPassword(row.password_hash, 'correct horse')).toBe(true);
    });

    it('makes an admin with --admin and takes --timezone', async () => {
      const alice = await createAlice('--admin', '--timezone', 'Europe/Berlin');
      expect(alice).toMatchObject({ isAdmin: true, timezone: 'Europe/Berlin' });
    });

    it('uses TIMEZONE for the new user when --timezone is absent', async () => {
      await cli(
        ['user', 'create', '--name', 'bob', '--email', 'bob@example.test', '--password', 'correct horse'],
        { TIMEZONE: 'America/New_York' },
      );
      expect((await users().findByName('bob'))?.timezone).toBe('America/New_York');
    });

    it('refuses a duplicate name, a bad e-mail and a short password with one line and exit 1', async () => {
      await createAlice();
      const cases: [string[], string][] = [
        [
          ['--name', 'ALICE', '--email', 'other@example.test', '--password', 'correct horse'],
          'a user with this name already exists',
        ],
        [
          ['--name', 'carol', '--email', 'alice@example.test', '--password', 'correct horse'],
          'a user with this email already exists',
        ],
        [
          ['--name', 'carol', '--email', 'not-an-address', '--password', 'correct horse'],
          'email must be an e-mail address',
        ],
        [
          ['--name', 'carol', '--email', 'carol@example.test', '--password', 'short'],
          'password must be 8 to 512 characters',
        ],
        [
          ['--name', 'no spaces', '--email', 'carol@example.test', '--password', 'correct horse'],
          'name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
        ],
      ];
      for (const [args, message] of cases) {
        expect(await cli(['user', 'create', ...args])).toEqual({
          code: 1,
          stdout: '',
          stderr: `cinelog: ${message}\n`,
          lastLine: '',
        });
      }
      expect(await users().findByName('carol')).toBeUndefined();
    });

    it('is a usage error (exit 2) without a mandatory option', async () => {
      const result = await cli(['user', 'create', '--name', 'alice', '--password', 'correct horse']);
      expect(result).toMatchObject({
        code: 2,
        stdout: '',
        stderr: "cinelog: required option '--email <email>' not specified\n",
      });
    });
  });

  describe('user update', () => {
    it('sets how ratings are shown and the public profile', async () => {
      await createAlice();
      const result = await cli([
        'user',
        'update',
        '--name',
        'alice',
        '--rating-scale',
        'points',
        '--public-profile',
        'on',
      ]);
      expect(result).toMatchObject({ code: 0, stdout: 'alice\n' });
      expect(result.stderr).toContain('ratings as points, public profile on');
      expect(await users().findByName('alice')).toMatchObject({ ratingScale: 'points', publicProfile: true });
      expect((await cli(['user', 'update', '--name', 'alice', '--rating-scale', 'halves'])).code).toBe(2);
      expect((await cli(['user', 'update', '--name', 'alice', '--public-profile', 'yes'])).code).toBe(2);
      expect(await users().findByName('alice')).toMatchObject({ ratingScale: 'points', publicProfile: true });
    });

    it('changes time zone, privacy and e-mail and prints the name', async () => {
      await createAlice();
      const result = await cli([
        'user',
        'update',
        '--name',
        'alice',
        '--timezone',
        'Europe/Berlin',
        '--privacy',
        'private',
        '--email',
        'new@example.test',
      ]);
      expect(result).toMatchObject({ code: 0, stdout: 'alice\n' });
      expect(result.stderr).toBe(
        'updated user "alice" (id 1, not admin, e-mail new@example.test, time zone Europe/Berlin, privacy private, watchlist auto-remove on, ratings as stars, public profile off)\n',
      );
      expect(await users().findByName('alice')).toMatchObject({
        timezone: 'Europe/Berlin',
        privacy: 'private',
        email: 'new@example.test',
      });
    });

    it('turns the watchlist auto-removal off and on', async () => {
      await createAlice();
      expect((await cli(['user', 'update', '--name', 'alice', '--watchlist-auto-remove', 'off'])).code).toBe(
        0,
      );
      expect(await users().findByName('alice')).toMatchObject({
        watchlistAutoRemove: false,
        timezone: 'UTC',
      });
      expect((await cli(['user', 'update', '--name', 'alice', '--watchlist-auto-remove', 'on'])).code).toBe(
        0,
      );
      expect(await users().findByName('alice')).toMatchObject({ watchlistAutoRemove: true, timezone: 'UTC' });
      expect(
        (await cli(['user', 'update', '--name', 'alice', '--watchlist-auto-remove', 'maybe'])).code,
      ).toBe(2);
    });

    it('refuses a bad time zone, a bad privacy, an unknown user and an empty change', async () => {
      await createAlice();
      expect(await cli(['user', 'update', '--name', 'alice', '--timezone', 'Mars/Olympus'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'cinelog: unknown time zone "Mars/Olympus"\n',
      });
      expect(await cli(['user', 'update', '--name', 'alice', '--privacy', 'public'])).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          "cinelog: option '--privacy <privacy>' argument 'public' is invalid. Allowed choices are private, users.\n",
      });
      expect(await cli(['user', 'update', '--name', 'nobody', '--privacy', 'private'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'cinelog: no user named "nobody"\n',
      });
      await cli([
        'user',
        'create',
        '--name',
        'bob',
        '--email',
        'bob@example.test',
        '--password',
        'correct horse',
      ]);
      expect(await cli(['user', 'update', '--name', 'alice', '--email', 'BOB@example.test'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'cinelog: a user with this email already exists\n',
      });
      expect(await cli(['user', 'update', '--name', 'alice'])).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          'cinelog: nothing to change: give --timezone, --privacy, --email, --watchlist-auto-remove, --rating-scale, --public-profile, --admin or --two-factor\n',
      });
      expect(await users().findByName('alice')).toMatchObject({ timezone: 'UTC', privacy: 'users' });
    });
  });

  describe('user reset-password', () => {
    it('sets the password and revokes every active token, saying how many', async () => {
      const alice = await createAlice();
      const first = await createToken('one');
      const second = await createToken('two', '--expires', 'never');
      const third = await createToken('three');
      await cli(['token', 'revoke', '--user', 'alice', '--prefix', third.slice(0, 16)]);
      const webSession = await sessions().start(alice.id, true);
      expect(await sessions().resolve(webSession.value)).not.toBeNull();

      const result = await cli([
        'user',
        'reset-password',
        '--name',
        'alice',
        '--password',
        'new secret pass',
      ]);
      expect(result).toEqual({
        code: 0,
        stdout: 'alice\n',
        stderr: 'password of "alice" reset; revoked 2 API tokens\n',
        lastLine: 'alice',
      });
      await rejects(first);
      await rejects(second);
      expect((await tokens().list(alice.id)).map((t) => t.state)).toEqual(['revoked', 'revoked', 'revoked']);
      const row = await database.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', alice.id)
        .executeTakeFirstOrThrow();
      expect(await verifyPassword(row.password_hash, 'new secret pass')).toBe(true);
      expect(await verifyPassword(row.password_hash, 'correct horse')).toBe(false);
      // Signed out of the web app everywhere, too.
      expect(await sessions().resolve(webSession.value)).toBeNull();
    });

    it('turns two-factor sign-in off, and says so', async () => {
      const alice = await createAlice();
      await turnOnTwoFactor(alice);
      const result = await cli([
        'user',
        'reset-password',
        '--name',
        'alice',
        '--password',
        'new secret pass',
      ]);
      expect(result).toMatchObject({
        code: 0,
        stdout: 'alice\n',
        stderr: 'password of "alice" reset; revoked 0 API tokens; turned off two-factor sign-in\n',
      });
      expect(await twoFactor().status(alice.id)).toEqual({
        state: 'off',
        enabledAt: null,
        recoveryCodesLeft: 0,
      });
      const left = await database.db.selectFrom('two_factor_recovery_codes').select('id').execute();
      expect(left).toEqual([]);
    });

    it('refuses a short password and an unknown user', async () => {
      const alice = await createAlice();
      await turnOnTwoFactor(alice);
      expect(await cli(['user', 'reset-password', '--name', 'alice', '--password', 'short'])).toMatchObject({
        code: 1,
        stderr: 'cinelog: password must be 8 to 512 characters\n',
      });
      expect(
        await cli(['user', 'reset-password', '--name', 'nobody', '--password', 'long enough']),
      ).toMatchObject({ code: 1, stdout: '', stderr: 'cinelog: no user named "nobody"\n' });
      // A refused reset leaves two-factor sign-in on.
      expect(await twoFactor().isOn(alice.id)).toBe(true);
    });
  });

  describe('user update --two-factor off', () => {
    it('turns a locked-out user’s two-factor sign-in off, alone or with other changes', async () => {
      const alice = await createAlice();
      await turnOnTwoFactor(alice);
      expect(await cli(['user', 'update', '--name', 'alice', '--two-factor', 'off'])).toMatchObject({
        code: 0,
        stdout: 'alice\n',
        stderr: 'turned off two-factor sign-in of "alice": the password alone signs in now\n',
      });
      expect(await twoFactor().isOn(alice.id)).toBe(false);
      expect(await cli(['user', 'update', '--name', 'alice', '--two-factor', 'off'])).toMatchObject({
        code: 0,
        stderr: 'two-factor sign-in of "alice" was already off\n',
      });
      await turnOnTwoFactor(alice);
      const both = await cli([
        'user',
        'update',
        '--name',
        'alice',
        '--privacy',
        'private',
        '--two-factor',
        'off',
      ]);
      expect(both.code).toBe(0);
      expect(both.stderr).toMatch(
        /^updated user "alice" \(.*privacy private.*\)\nturned off two-factor sign-in of "alice"/,
      );
      expect(await twoFactor().isOn(alice.id)).toBe(false);
    });

    it('accepts only "off", changes nothing for a refused update, and fails for an unknown user', async () => {
      const alice = await createAlice();
      await turnOnTwoFactor(alice);
      expect(await cli(['user', 'update', '--name', 'alice', '--two-factor', 'on'])).toMatchObject({
        code: 2,
        stderr: "cinelog: option '--two-factor <off>' argument 'on' is invalid. Allowed choices are off.\n",
      });
      expect(
        await cli(['user', 'update', '--name', 'alice', '--timezone', 'Mars/Olympus', '--two-factor', 'off']),
      ).toMatchObject({ code: 1, stderr: 'cinelog: unknown time zone "Mars/Olympus"\n' });
      expect(await twoFactor().isOn(alice.id)).toBe(true);
      expect(await cli(['user', 'update', '--name', 'nobody', '--two-factor', 'off'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'cinelog: no user named "nobody"\n',
      });
    });
  });

  describe('user list, delete and the administrator role', () => {
    const create = (name: string, ...extra: string[]) =>
      cli([
        'user',
        'create',
        '--name',
        name,
        '--email',
        `${name}@example.test`,
        '--password',
        'correct horse',
        ...extra,
      ]);

    it('lists users as a table and as JSON, never a password hash', async () => {
      await create('zoe', '--admin', '--timezone', 'Europe/Paris');
      await create('adam');
      const table = await cli(['user', 'list']);
      expect(table.code).toBe(0);
      const lines = table.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^NAME\s+E-MAIL\s+ADMIN\s+TIME ZONE\s+PRIVACY\s+CREATED$/);
      expect(lines[1]).toMatch(/^adam\s+adam@example\.test\s+no\s+UTC\s+users\s+2024-06-15T12:00:00Z$/);
      expect(lines[2]).toMatch(
        /^zoe\s+zoe@example\.test\s+yes\s+Europe\/Paris\s+users\s+2024-06-15T12:00:00Z$/,
      );
      expect(table.stderr).toBe('2 users\n');
      const json = await cli(['user', 'list', '--json']);
      expect(json.stdout.split('\n')).toHaveLength(2);
      expect(JSON.parse(json.lastLine!)).toEqual([
        {
          name: 'adam',
          email: 'adam@example.test',
          isAdmin: false,
          timezone: 'UTC',
          privacy: 'users',
          createdAt: '2024-06-15T12:00:00.000Z',
        },
        {
          name: 'zoe',
          email: 'zoe@example.test',
          isAdmin: true,
          timezone: 'Europe/Paris',
          privacy: 'users',
          createdAt: '2024-06-15T12:00:00.000Z',
        },
      ]);
      expect(json.stdout).not.toContain('argon2');
    });

    it('promotes and demotes with --admin, never the last administrator', async () => {
      await create('zoe', '--admin');
      await create('adam');
      const promoted = await cli(['user', 'update', '--name', 'adam', '--admin', 'on']);
      expect([promoted.code, promoted.stdout]).toEqual([0, 'adam\n']);
      expect(promoted.stderr).toContain('updated user "adam" (id 2, admin,');
      expect((await users().findByName('adam'))!.isAdmin).toBe(true);
      expect((await cli(['user', 'update', '--name', 'zoe', '--admin', 'off'])).code).toBe(0);

      const last = await cli([
        'user',
        'update',
        '--name',
        'adam',
        '--admin',
        'off',
        '--timezone',
        'Europe/Paris',
      ]);
      expect([last.code, last.stdout, last.stderr]).toEqual([
        1,
        '',
        'cinelog: adam is the last administrator: make another user an administrator before demoting adam\n',
      ]);
      expect(await users().findByName('adam')).toMatchObject({ isAdmin: true, timezone: 'UTC' });
      const bad = await cli(['user', 'update', '--name', 'adam', '--admin', 'yes']);
      expect(bad.code).toBe(2);
    });

    it('deletes a user with everything they own after --yes, leaving the others', async () => {
      await create('zoe', '--admin');
      await createAlice();
      await createToken('phone');
      const movie = await createMovie({ db: database.db, clock });
      const alice = (await users().findByName('alice'))!;
      const zoe = (await users().findByName('zoe'))!;
      const library = createLibrary({ db: database.db, clock, imageBaseUrl: 'http://images.test' });
      for (const owner of [alice, zoe]) {
        await library.write(owner.id, (lib) =>
          lib.addPlays([
            { movieId: movie.id, watchedAt: '2024-01-01', plays: 1, comment: null, position: 1 },
          ]),
        );
      }

      const unconfirmed = await cli(['user', 'delete', '--name', 'alice']);
      expect([unconfirmed.code, unconfirmed.stderr]).toEqual([
        2,
        'cinelog: deleting "alice" removes all of their data and cannot be undone: add --yes to confirm\n',
      ]);
      expect(await users().findByName('alice')).toBeDefined();

      const deleted = await cli(['user', 'delete', '--name', 'alice', '--yes']);
      expect([deleted.code, deleted.stdout, deleted.stderr]).toEqual([
        0,
        'alice\n',
        'deleted user "alice" with 1 watch date, 0 movies on the watchlist, 0 ratings, 1 API token, 0 webhooks\n',
      ]);
      expect(await users().findByName('alice')).toBeUndefined();
      const plays = await database.db.selectFrom('watch_dates').select('user_id').execute();
      expect(plays).toEqual([{ user_id: zoe.id }]);
      expect(
        await database.db.selectFrom('api_tokens').select('id').where('user_id', '=', alice.id).execute(),
      ).toEqual([]);

      const lastAdmin = await cli(['user', 'delete', '--name', 'zoe', '--yes']);
      expect([lastAdmin.code, lastAdmin.stderr]).toEqual([
        1,
        'cinelog: zoe is the last administrator: make another user an administrator before deleting zoe\n',
      ]);
      const unknown = await cli(['user', 'delete', '--name', 'nobody', '--yes']);
      expect([unknown.code, unknown.stderr]).toEqual([1, 'cinelog: no user named "nobody"\n']);
      expect((await users().list()).map((user) => user.name)).toEqual(['zoe']);
    });
  });

  describe('token create', () => {
    it('prints a working token on the last line; it expires in 90 days by default', async () => {
      const alice = await createAlice();
      const result = await cli(['token', 'create', '--user', 'alice', '--name', 'home assistant']);
      expect(result.code).toBe(0);
      expect(result.stdout.split('\n')).toHaveLength(2);
      const value = result.lastLine!;
      expect(value).toMatch(TOKEN_PATTERN);
      expect(result.stderr).toBe(
        `created token "home assistant" for alice (prefix ${value.slice(0, 16)}, expires 2024-09-13T12:00:00Z); ` +
          'it is shown only now: store it somewhere safe\n',
      );
      expect(await tokens().authenticate(value)).toMatchObject({ userId: alice.id, name: 'alice' });
      expect(await tokens().list(alice.id)).toEqual([
        {
          id: expect.any(Number),
          name: 'home assistant',
          displayPrefix: value.slice(0, 16),
          createdAt: '2024-06-15T12:00:00.000Z',
          lastUsedAt: '2024-06-15T12:00:00.000Z',
          expiresAt: '2024-09-13T12:00:00.000Z',
          state: 'active',
        },
      ]);
    });

    it('takes --expires 30, 365 and never', async () => {
      const alice = await createAlice();
      await createToken('a', '--expires', '30');
      await createToken('b', '--expires', '365');
      await createToken('c', '--expires', 'never');
      const expiries = (await tokens().list(alice.id)).map((t) => [t.name, t.expiresAt]);
      expect(expiries).toEqual([
        ['c', null],
        ['b', '2025-06-15T12:00:00.000Z'],
        ['a', '2024-07-15T12:00:00.000Z'],
      ]);
    });

    it('refuses a bad expiry, an empty name and an unknown user', async () => {
      const alice = await createAlice();
      expect(await cli(['token', 'create', '--user', 'alice', '--name', 'x', '--expires', '7'])).toEqual({
        code: 2,
        stdout: '',
        stderr:
          "cinelog: option '--expires <days>' argument '7' is invalid. Allowed choices are 30, 90, 365, never.\n",
        lastLine: '',
      });
      expect(await cli(['token', 'create', '--user', 'alice', '--name', '  '])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'cinelog: token name must be 1 to 100 characters\n',
      });
      expect(await cli(['token', 'create', '--user', 'nobody', '--name', 'x'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'cinelog: no user named "nobody"\n',
      });
      expect(await tokens().list(alice.id)).toEqual([]);
    });
  });

  describe('token list', () => {
    it('shows name, prefix, times and state (active, expired, revoked), never a token value', async () => {
      await createAlice();
      const kept = await createToken('kept', '--expires', 'never');
      await tokens().authenticate(kept);
      clock.advance(DAY_MS);
      const lapsing = await createToken('lapsing', '--expires', '30');
      const revoked = await createToken('revoked', '--expires', 'never');
      await cli(['token', 'revoke', '--user', 'alice', '--prefix', revoked.slice(0, 16)]);
      clock.advance(31 * DAY_MS);

      const table = await cli(['token', 'list', '--user', 'alice']);
      expect(table.code).toBe(0);
      expect(table.stderr).toBe('3 tokens of alice\n');
      expect(table.stdout).toBe(
        [
          'NAME     PREFIX            CREATED               LAST USED             EXPIRES               STATE',
          `revoked  ${revoked.slice(0, 16)}  2024-06-16T12:00:00Z  never                 never                 revoked`,
          `lapsing  ${lapsing.slice(0, 16)}  2024-06-16T12:00:00Z  never                 2024-07-16T12:00:00Z  expired`,
          `kept     ${kept.slice(0, 16)}  2024-06-15T12:00:00Z  2024-06-15T12:00:00Z  never                 active`,
          '',
        ].join('\n'),
      );
      for (const value of [kept, lapsing, revoked]) expect(table.stdout).not.toContain(value);

      const json = await cli(['token', 'list', '--user', 'alice', '--json']);
      expect(json.code).toBe(0);
      expect(json.stdout.split('\n')).toHaveLength(2);
      expect(JSON.parse(json.lastLine!)).toEqual([
        {
          name: 'revoked',
          prefix: revoked.slice(0, 16),
          createdAt: '2024-06-16T12:00:00.000Z',
          lastUsedAt: null,
          expiresAt: null,
          state: 'revoked',
        },
        {
          name: 'lapsing',
          prefix: lapsing.slice(0, 16),
          createdAt: '2024-06-16T12:00:00.000Z',
          lastUsedAt: null,
          expiresAt: '2024-07-16T12:00:00.000Z',
          state: 'expired',
        },
        {
          name: 'kept',
          prefix: kept.slice(0, 16),
          createdAt: '2024-06-15T12:00:00.000Z',
          lastUsedAt: '2024-06-15T12:00:00.000Z',
          expiresAt: null,
          state: 'active',
        },
      ]);
      for (const value of [kept, lapsing, revoked]) expect(json.stdout).not.toContain(value);
    });

    it('prints only the header for a user without tokens, and fails for an unknown user', async () => {
      await createAlice();
      expect(await cli(['token', 'list', '--user', 'alice'])).toMatchObject({
        code: 0,
        stdout: 'NAME  PREFIX  CREATED  LAST USED  EXPIRES  STATE\n',
        stderr: '0 tokens of alice\n',
      });
      expect(await cli(['token', 'list', '--user', 'alice', '--json'])).toMatchObject({
        code: 0,
        stdout: '[]\n',
      });
      expect(await cli(['token', 'list', '--user', 'nobody'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'cinelog: no user named "nobody"\n',
      });
    });
  });

  describe('token revoke', () => {
    it('revokes one token by its display prefix: that token stops working at once, others keep working', async () => {
      const alice = await createAlice();
      const target = await createToken('target');
      const other = await createToken('other');
      const prefix = target.slice(0, 16);

      const result = await cli(['token', 'revoke', '--user', 'alice', '--prefix', prefix]);
      expect(result).toEqual({
        code: 0,
        stdout: '1\n',
        stderr: `revoked token ${prefix} of alice\n`,
        lastLine: '1',
      });
      await rejects(target);
      expect(await tokens().authenticate(other)).toMatchObject({ userId: alice.id });
      expect((await tokens().list(alice.id)).map((t) => [t.name, t.state])).toEqual([
        ['other', 'active'],
        ['target', 'revoked'],
      ]);

      // Again: nothing left to do, which is no failure.
      expect(await cli(['token', 'revoke', '--user', 'alice', '--prefix', prefix])).toEqual({
        code: 0,
        stdout: '0\n',
        stderr: `the token ${prefix} of alice was already revoked\n`,
        lastLine: '0',
      });
    });

    it('fails for an unknown prefix, and for a prefix of another user', async () => {
      await createAlice();
      await cli([
        'user',
        'create',
        '--name',
        'bob',
        '--email',
        'bob@example.test',
        '--password',
        'correct horse',
      ]);
      const bobs = (await cli(['token', 'create', '--user', 'bob', '--name', 'b'])).lastLine!;
      expect(await cli(['token', 'revoke', '--user', 'alice', '--prefix', 'cinelog_nothere0'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'cinelog: alice has no token with prefix "cinelog_nothere0"\n',
        lastLine: '',
      });
      expect(await cli(['token', 'revoke', '--user', 'alice', '--prefix', bobs.slice(0, 16)])).toMatchObject({
        code: 1,
        stderr: `cinelog: alice has no token with prefix "${bobs.slice(0, 16)}"\n`,
      });
      expect(await tokens().authenticate(bobs)).toMatchObject({ name: 'bob' });
    });

    it('revokes every token with --all and prints how many', async () => {
      const alice = await createAlice();
      const values = [await createToken('a'), await createToken('b', '--expires', 'never')];
      expect(await cli(['token', 'revoke', '--user', 'alice', '--all'])).toEqual({
        code: 0,
        stdout: '2\n',
        stderr: 'revoked 2 tokens of alice\n',
        lastLine: '2',
      });
      for (const value of values) await rejects(value);
      expect((await tokens().list(alice.id)).map((t) => t.state)).toEqual(['revoked', 'revoked']);
      expect((await cli(['token', 'revoke', '--user', 'alice', '--all'])).stdout).toBe('0\n');
    });

    it('needs exactly one of --prefix and --all, and a known user', async () => {
      await createAlice();
      const value = await createToken('a');
      const usage = {
        code: 2,
        stdout: '',
        stderr: 'cinelog: give exactly one of --prefix <display-prefix> or --all\n',
      };
      expect(await cli(['token', 'revoke', '--user', 'alice'])).toMatchObject(usage);
      expect(
        await cli(['token', 'revoke', '--user', 'alice', '--all', '--prefix', value.slice(0, 16)]),
      ).toMatchObject(usage);
      expect(await cli(['token', 'revoke', '--user', 'nobody', '--all'])).toMatchObject({
        code: 1,
        stderr: 'cinelog: no user named "nobody"\n',
      });
      expect(await tokens().authenticate(value)).toMatchObject({ name: 'alice' });
    });
  });

  describe('webhook', () => {
    const URL_PATTERN =
      /^https:\/\/movies\.example\.test\/api\/webhook\/mediaserver-([abcd])\/([0-9a-f-]{36})$/;
    const env = { APP_URL: 'https://movies.example.test/' };
    const webhookRow = (server: string) =>
      database.db
        .selectFrom('webhooks')
        .selectAll()
        .where('server', '=', server as 'plex')
        .executeTakeFirst();

    it('creates one URL per server, printed alone on the last line, with each server’s path', async () => {
      await createAlice();
      const letters: Record<string, string> = { plex: 'a', jellyfin: 'b', emby: 'c', kodi: 'd' };
      for (const [server, letter] of Object.entries(letters)) {
        const result = await cli(['webhook', 'create', '--user', 'alice', '--server', server], env);
        expect(result.code).toBe(0);
        const match = URL_PATTERN.exec(result.lastLine ?? '');
        expect(match?.[1]).toBe(letter);
        expect((await webhookRow(server))?.uuid).toBe(match?.[2]);
      }
      expect(await webhookRow('plex')).toMatchObject({
        scrobble_watches: 1,
        scrobble_ratings: 0,
        account_filter: null,
      });
    });

    it('regenerates the UUID on a second create, turns ratings on with --ratings, and keeps them on', async () => {
      await createAlice();
      const first = await cli(['webhook', 'create', '--user', 'alice', '--server', 'plex'], env);
      const second = await cli(
        ['webhook', 'create', '--user', 'alice', '--server', 'plex', '--ratings'],
        env,
      );
      expect(second.lastLine).not.toBe(first.lastLine);
      expect(second.stderr).toContain('the previous URL no longer works');
      expect(await webhookRow('plex')).toMatchObject({
        uuid: URL_PATTERN.exec(second.lastLine!)?.[2],
        scrobble_ratings: 1,
      });
      await cli(['webhook', 'create', '--user', 'alice', '--server', 'plex'], env);
      expect(await webhookRow('plex')).toMatchObject({ scrobble_ratings: 1 });
      expect(
        await cli(['webhook', 'create', '--user', 'alice', '--server', 'kodi', '--ratings']),
      ).toMatchObject({
        code: 1,
        stderr: 'cinelog: Kodi sends no ratings: only Plex ratings can be set\n',
      });
    });

    it('updates toggles and the user filter, lists and deletes', async () => {
      await createAlice();
      await cli(['webhook', 'create', '--user', 'alice', '--server', 'jellyfin'], env);
      const updated = await cli(
        [
          'webhook',
          'update',
          '--user',
          'alice',
          '--server',
          'jellyfin',
          '--watches',
          'off',
          '--users',
          'Alice, partner ,',
        ],
        env,
      );
      expect(updated.code).toBe(0);
      expect(await webhookRow('jellyfin')).toMatchObject({
        scrobble_watches: 0,
        account_filter: '["Alice","partner"]',
      });
      const listed = await cli(['webhook', 'list', '--user', 'alice'], env);
      expect(listed.stdout).toMatch(
        /^jellyfin\thttps:\/\/movies\.example\.test\/api\/webhook\/mediaserver-b\/[0-9a-f-]{36}\twatches off, users Alice, partner\n$/,
      );
      await cli(
        ['webhook', 'update', '--user', 'alice', '--server', 'jellyfin', '--all-users', '--watches', 'on'],
        env,
      );
      expect(await webhookRow('jellyfin')).toMatchObject({ scrobble_watches: 1, account_filter: null });
      expect(await cli(['webhook', 'delete', '--user', 'alice', '--server', 'jellyfin'])).toMatchObject({
        code: 0,
        stdout: 'jellyfin\n',
      });
      expect(await webhookRow('jellyfin')).toBeUndefined();
      expect(await cli(['webhook', 'delete', '--user', 'alice', '--server', 'jellyfin'])).toMatchObject({
        code: 1,
        stderr: 'cinelog: alice has no jellyfin webhook\n',
      });
    });

    it('refuses a user filter for Kodi, whose reports name no user, and changes nothing', async () => {
      await createAlice();
      await cli(['webhook', 'create', '--user', 'alice', '--server', 'kodi'], env);
      const before = await webhookRow('kodi');
      expect(
        await cli([
          'webhook',
          'update',
          '--user',
          'alice',
          '--server',
          'kodi',
          '--users',
          'alice',
          '--watches',
          'off',
        ]),
      ).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'cinelog: Kodi reports carry no user name: a user filter would ignore all of them\n',
      });
      expect(await webhookRow('kodi')).toEqual(before);
      // Counting everyone's reports is what Kodi does anyway: allowed.
      expect(
        (await cli(['webhook', 'update', '--user', 'alice', '--server', 'kodi', '--all-users'], env)).code,
      ).toBe(0);
      const listed = await cli(['webhook', 'list', '--user', 'alice'], env);
      expect(listed.stdout).toMatch(
        /^kodi\thttps:\/\/movies\.example\.test\/api\/webhook\/mediaserver-d\/[0-9a-f-]{36}\twatches on\n$/,
      );
    });

    it('refuses an unknown server, an unknown user, a missing webhook and an empty update', async () => {
      await createAlice();
      expect((await cli(['webhook', 'create', '--user', 'alice', '--server', 'winamp'])).code).toBe(2);
      expect(await cli(['webhook', 'create', '--user', 'nobody', '--server', 'plex'])).toMatchObject({
        code: 1,
        stderr: 'cinelog: no user named "nobody"\n',
      });
      expect(
        await cli(['webhook', 'update', '--user', 'alice', '--server', 'emby', '--watches', 'off']),
      ).toMatchObject({
        code: 1,
        stderr: 'cinelog: no emby webhook yet: create one first\n',
      });
      expect((await cli(['webhook', 'update', '--user', 'alice', '--server', 'emby'])).code).toBe(2);
    });
  });

  describe('migrate', () => {
    it('applies every migration to an empty database file, then finds nothing to do', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cinelog-cli-'));
      const url = `sqlite:${join(dir, 'fresh.sqlite')}`;
      try {
        const first = await cli(['migrate'], { DATABASE_URL: url });
        // SQLite removes the write-ahead log when the last connection closes: the command closed its own.
        expect(existsSync(join(dir, 'fresh.sqlite'))).toBe(true);
        expect(existsSync(join(dir, 'fresh.sqlite-wal'))).toBe(false);
        const names = Object.keys(migrations).sort();
        expect(names.length).toBeGreaterThan(0);
        expect(first).toEqual({
          code: 0,
          stdout: names.map((name) => `${name}\n`).join(''),
          stderr: `applied ${names.length} migration${names.length === 1 ? '' : 's'}\n`,
          lastLine: names.at(-1),
        });
        expect(await cli(['migrate'], { DATABASE_URL: url })).toEqual({
          code: 0,
          stdout: '',
          stderr: 'the database is up to date: no pending migrations\n',
          lastLine: '',
        });
        const handle = openDatabase(url);
        try {
          const { rows } = await sql<{ n: number }>`select count(*) as n from users`.execute(handle.db);
          expect(rows).toEqual([{ n: 0 }]);
        } finally {
          await handle.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('runs pending migrations before any other command, noting them on stderr', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cinelog-cli-'));
      try {
        const result = await cli(
          [
            'user',
            'create',
            '--name',
            'first',
            '--email',
            'first@example.test',
            '--password',
            'correct horse',
          ],
          { DATABASE_URL: `sqlite:${join(dir, 'fresh.sqlite')}` },
        );
        expect(result.code).toBe(0);
        expect(result.stdout).toBe('first\n');
        expect(result.stderr.split('\n')[0]).toBe(
          `applied ${Object.keys(migrations).length} migration${Object.keys(migrations).length === 1 ? '' : 's'}: ${Object.keys(migrations).sort().join(', ')}`,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('jobs and movies refresh', () => {
    let fake: FakeTmdb;
    beforeAll(async () => {
      fake = await startFakeTmdb();
    });
    afterAll(() => fake.close());
    const tmdbEnv = () => ({ TMDB_API_KEY: FAKE_TMDB_API_KEY, TMDB_BASE_URL: fake.url });
    const seed = FAKE_TMDB_MOVIES[0]!;

    /** A movie added as the API adds it, through TMDB; its service id. */
    async function addMovie() {
      const movies = createMoviesService({
        catalog: statisticsFollowCatalog,
        db: database.db,
        clock,
        tmdb: createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: fake.url, maxRetries: 0 }),
        marks: createLibrary({ db: database.db, clock, imageBaseUrl: 'http://images.test' }).marks,
      });
      return movies.findOrAdd(seed.id);
    }

    it('lists no jobs on a new database, as a table or as JSON', async () => {
      const table = await cli(['jobs', 'list']);
      expect(table).toMatchObject({ code: 0, stderr: '0 jobs\n' });
      expect(table.stdout).toMatch(/^id\s+kind\s+state\s+attempts\s+progress\s+when\s+outcome\n$/);
      expect(await cli(['jobs', 'list', '--json'])).toMatchObject({ code: 0, stdout: '[]\n' });
    });

    it('refreshes every movie at once, picking up a title changed at TMDB, and lists the job', async () => {
      fake.reset();
      const serviceId = await addMovie();
      fake.putMovie({ ...seed, title: 'A Title Changed At TMDB' });
      const refreshed = await cli(['movies', 'refresh', '--all'], tmdbEnv());
      expect(refreshed.code).toBe(0);
      expect(refreshed.lastLine).toBe('1');
      expect(refreshed.stderr).toContain('queued 1 refresh');
      expect(refreshed.stderr).toMatch(/job #\d+ movie\.refresh: done: refreshed/);
      const row = await database.db
        .selectFrom('movies')
        .select('title')
        .where('id', '=', serviceId)
        .executeTakeFirstOrThrow();
      expect(row.title).toBe('A Title Changed At TMDB');
      const listed = await cli(['jobs', 'list', '--json']);
      expect(JSON.parse(listed.stdout)).toMatchObject([
        { kind: 'movie.refresh', key: `movie:${serviceId}`, state: 'done', result: 'refreshed', attempts: 1 },
      ]);
    });

    it('queues only with --queue-only, and `jobs run` runs what is due', async () => {
      fake.reset();
      const serviceId = await addMovie();
      fake.putMovie({ ...seed, title: 'Changed Again' });
      const queued = await cli(['movies', 'refresh', '--id', String(serviceId), '--queue-only'], tmdbEnv());
      expect(queued).toMatchObject({ code: 0, lastLine: '1' });
      expect(JSON.parse((await cli(['jobs', 'list', '--json'])).stdout)).toMatchObject([{ state: 'queued' }]);
      // Queued again while pending: nothing new.
      expect(
        (await cli(['movies', 'refresh', '--id', String(serviceId), '--queue-only'], tmdbEnv())).lastLine,
      ).toBe('0');
      const run = await cli(['jobs', 'run'], tmdbEnv());
      expect(run).toMatchObject({ code: 0, lastLine: '{"done":1,"failed":0}' });
      const row = await database.db
        .selectFrom('movies')
        .select('title')
        .where('id', '=', serviceId)
        .executeTakeFirstOrThrow();
      expect(row.title).toBe('Changed Again');
    });

    it('refuses a refresh without TMDB, of an unknown movie, or with a wrong command line', async () => {
      expect(await cli(['movies', 'refresh', '--all'])).toMatchObject({
        code: 1,
        stderr: 'cinelog: TMDB_API_KEY is not set: refreshing needs TMDB\n',
      });
      expect(await cli(['movies', 'refresh', '--id', '4242'], tmdbEnv())).toMatchObject({
        code: 1,
        stderr: 'cinelog: no movie with service id 4242\n',
      });
      for (const args of [
        ['movies', 'refresh'],
        ['movies', 'refresh', '--all', '--id', '1'],
        ['movies', 'refresh', '--id', 'x'],
      ]) {
        expect((await cli(args, tmdbEnv())).code, args.join(' ')).toBe(2);
      }
      expect(JSON.parse((await cli(['jobs', 'list', '--json'])).stdout)).toEqual([]);
    });
  });

  describe('imdb import', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'cinelog-cli-imdb-'));
    });
    afterEach(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    const DATASET = ratingsTsv([
      ['tt0000001', 5.7, 2105],
      ['tt0111161', 9.3, 3_012_345],
      'tt0068646\t9.2', // malformed: a field short
      ['tt0068646', 9.2, 2_100_000],
    ]);
    const write = (name: string, content: string | Buffer) => {
      writeFileSync(join(dir, name), content);
      return join(dir, name);
    };
    const ratingOf = (id: number) =>
      database.db
        .selectFrom('movies')
        .select(['imdb_rating_average as average', 'imdb_rating_count as count'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    it('loads a gzipped dataset into the movies cinelog knows and prints the counts as JSON', async () => {
      const known = await createMovie({ db: database.db, clock }, { imdb_id: 'tt0111161' });
      const unknownToImdb = await createMovie({ db: database.db, clock }, { imdb_id: 'tt9999999' });
      const result = await cli(['imdb', 'import', write('title.ratings.tsv.gz', gzipped(DATASET))]);
      expect(result).toEqual({
        code: 0,
        stdout: '{"lines":4,"matched":1,"updated":1,"skipped":1}\n',
        stderr:
          'read 4 ratings: 1 of them for movies cinelog knows, 1 movie with a changed rating; skipped 1 malformed line\n',
        lastLine: '{"lines":4,"matched":1,"updated":1,"skipped":1}',
      });
      expect(await ratingOf(known.id)).toEqual({ average: 9.3, count: 3_012_345 });
      expect(await ratingOf(unknownToImdb.id)).toEqual({ average: null, count: null });
    });

    it('loads the unzipped .tsv too, and finds nothing to change the second time', async () => {
      const movie = await createMovie({ db: database.db, clock }, { imdb_id: 'tt0068646' });
      const path = write('title.ratings.tsv', DATASET);
      expect((await cli(['imdb', 'import', path])).lastLine).toBe(
        '{"lines":4,"matched":1,"updated":1,"skipped":1}',
      );
      expect(await ratingOf(movie.id)).toEqual({ average: 9.2, count: 2_100_000 });
      const again = await cli(['imdb', 'import', path]);
      expect(again.lastLine).toBe('{"lines":4,"matched":1,"updated":0,"skipped":1}');
      expect(again.stderr).toContain('0 movies with a changed rating');
    });

    it('draws a progress bar on a terminal, ending its line before the summary', async () => {
      await createMovie({ db: database.db, clock }, { imdb_id: 'tt0111161' });
      let stderr = '';
      const code = await runCli(['imdb', 'import', write('title.ratings.tsv.gz', gzipped(DATASET))], {
        env: { DATABASE_URL: database.url },
        stdout: { write: () => true },
        stderr: Object.assign({ write: (chunk: string) => (stderr += chunk) }, { isTTY: true }),
        clock,
      });
      expect(code).toBe(0);
      expect(stderr).toMatch(/^\rreading \[#{30}\] 100%\nread 4 ratings: /);
    });

    it('fails with one line for a missing, unreadable or malformed file', async () => {
      const missing = join(dir, 'nope.tsv.gz');
      const gz = gzipped(DATASET);
      const cases: [string, string][] = [
        [missing, `cannot read ${missing}: no such file`],
        [dir, `cannot read ${dir}: it is not a file`],
        [
          write('movies.csv', 'title,year\nAlien,1979\n'),
          `${join(dir, 'movies.csv')}: not an IMDb title.ratings.tsv(.gz) file: its first line is "title,year", expected "tconst<TAB>averageRating<TAB>numVotes"`,
        ],
        [
          write('empty.tsv', ''),
          `${join(dir, 'empty.tsv')}: not an IMDb title.ratings.tsv(.gz) file: it is empty, expected "tconst<TAB>averageRating<TAB>numVotes"`,
        ],
        [
          write('cut.tsv.gz', gz.subarray(0, gz.length - 10)),
          `${join(dir, 'cut.tsv.gz')}: not a readable gzip file: unexpected end of file`,
        ],
      ];
      if (process.getuid?.() !== 0) {
        const locked = write('locked.tsv', DATASET);
        chmodSync(locked, 0o000);
        cases.push([locked, `cannot read ${locked}: permission denied`]);
      }
      for (const [path, message] of cases) {
        expect(await cli(['imdb', 'import', path]), path).toEqual({
          code: 1,
          stdout: '',
          stderr: `cinelog: ${message}\n`,
          lastLine: '',
        });
      }
    });

    it('is a usage error without the path', async () => {
      expect(await cli(['imdb', 'import'])).toMatchObject({
        code: 2,
        stdout: '',
        stderr: "cinelog: missing required argument 'path'\n",
      });
    });
  });

  describe('errors and help', () => {
    it('stops on bad configuration with one line naming the variable', async () => {
      expect(await cli(['migrate'], { DATABASE_URL: 'mysql://db/cinelog' })).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'cinelog: configuration error: DATABASE_URL must be sqlite:<path> or postgres://user:pass@host:port/db\n',
        lastLine: '',
      });
      expect(await cli(['token', 'list', '--user', 'alice'], { TIMEZONE: 'Nowhere/Land' })).toMatchObject({
        code: 1,
        stderr:
          'cinelog: configuration error: TIMEZONE must be an IANA time zone such as Europe/Berlin (got "Nowhere/Land")\n',
      });
    });

    it('reports unknown commands, unknown options, stray arguments and a missing command as usage errors', async () => {
      const cases: [string[], string][] = [
        [['frob'], "unknown command 'frob'"],
        [['user', 'remove'], "unknown command 'remove'"],
        [
          ['user', 'create', '--nmae', 'alice', '--email', 'a@example.test', '--password', 'correct horse'],
          "unknown option '--nmae' (Did you mean --name?)",
        ],
        [['migrate', 'now'], "too many arguments for 'migrate'. Expected 0 arguments but got 1."],
        [['token', 'create', '--user'], "option '--user <name>' argument missing"],
        [
          [],
          'missing command: cinelog <user|token|webhook|feed|migrate|db|backup|restore|jobs|movies|imdb|import|export|backfill> (see cinelog --help)',
        ],
        [['token'], 'missing command: cinelog token <create|list|revoke> (see cinelog token --help)'],
      ];
      for (const [args, message] of cases) {
        expect(await cli(args), args.join(' ')).toEqual({
          code: 2,
          stdout: '',
          stderr: `cinelog: ${message}\n`,
          lastLine: '',
        });
      }
    });

    it('prints help on stdout with exit 0', async () => {
      const result = await cli(['--help']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^Usage: cinelog \[options\] \[command\]\n/);
      for (const command of ['user', 'token', 'migrate']) expect(result.stdout).toContain(`  ${command} `);
      const sub = await cli(['help', 'token']);
      expect(sub.code).toBe(0);
      expect(sub.stdout).toMatch(/^Usage: cinelog token \[options\] \[command\]\n/);
    });
  });

  describe('the installed bin', () => {
    it('runs end to end from bin/cinelog.js: user create, token create, exit codes', async () => {
      const entry = join(ROOT, 'dist', 'cli', 'main.js');
      if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` (npm test does)`);
      const run = (...args: string[]) =>
        spawnSync(process.execPath, [join(ROOT, 'bin', 'cinelog.js'), ...args], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url },
          encoding: 'utf8',
          timeout: 15_000,
        });

      const created = run(
        'user',
        'create',
        '--name',
        'dora',
        '--email',
        'dora@example.test',
        '--password',
        'correct horse',
      );
      expect([created.status, created.stdout]).toEqual([0, 'dora\n']);

      const token = run('token', 'create', '--user', 'dora', '--name', 'script', '--expires', 'never');
      expect(token.status).toBe(0);
      const value = token.stdout.trimEnd().split('\n').at(-1)!;
      expect(value).toMatch(TOKEN_PATTERN);
      expect(token.stderr).toContain(`(prefix ${value.slice(0, 16)}, never expires)`);
      const dora = (await users().findByName('dora'))!;
      expect(await tokens().authenticate(value)).toMatchObject({ userId: dora.id, name: 'dora' });

      const unknown = run('token', 'create', '--user', 'nobody', '--name', 'x');
      expect([unknown.status, unknown.stdout, unknown.stderr]).toEqual([
        1,
        '',
        'cinelog: no user named "nobody"\n',
      ]);
      const usage = run('token', 'revoke', '--user', 'dora');
      expect([usage.status, usage.stderr]).toEqual([
        2,
        'cinelog: give exactly one of --prefix <display-prefix> or --all\n',
      ]);
    });
  });
});
