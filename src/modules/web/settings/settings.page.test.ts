import { describe, expect, it } from 'vitest';
import { aPage, aUser } from '../../../../test/page-fixtures.js';
import type { TokenView } from '../../auth/api-tokens.service.js';
import type { InboxEntry } from '../../scrobble/scrobble.service.js';
import type { WebhookView } from '../../scrobble/webhooks.service.js';
import type { SystemStatus } from '../../status/status.service.js';
import { timeZoneChoices } from '../shell/forms.js';
import { accountPage, profileOf } from './account.page.js';
import { integrationsPage } from './integrations.page.js';
import { statusPage } from './status.page.js';
import { tokensPage } from './tokens.page.js';
import { usersPage } from './users.page.js';

// The settings pages' builders, called with what the services hand back: no database, no HTTP.

const berlin = aUser({ timezone: 'Europe/Berlin' });

describe('the account page', () => {
  const data = { profile: profileOf(berlin), email: berlin.email };
  const off = { status: { state: 'off' as const, enabledAt: null, recoveryCodesLeft: 0 }, available: true };

  it("shows the user's profile, the zones to pick from, and whether mail is set up", () => {
    const page = accountPage(berlin, data, off, false);
    expect(page).toMatchObject({
      title: 'Account',
      mailConfigured: false,
      email: 'alice@example.test',
      profile: { timezone: 'Europe/Berlin', privacy: 'users', ratingScale: 'points', publicProfile: false },
    });
    expect(page.timeZones).toEqual(timeZoneChoices());
    expect(page.timeZones).toContain('Europe/Berlin');
  });

  it('keeps a zone the runtime accepts but does not list, first, so saving never moves the user', () => {
    const alias = { ...data, profile: { ...data.profile, timezone: 'US/Eastern' } };
    expect(timeZoneChoices()).not.toContain('US/Eastern');
    expect(accountPage(berlin, alias, off, true).timeZones).toEqual(['US/Eastern', ...timeZoneChoices()]);
    // A zone the runtime refuses is not offered (the form says why it was refused).
    const unknown = { ...data, profile: { ...data.profile, timezone: 'Nowhere/Land' } };
    expect(accountPage(berlin, unknown, off, true).timeZones).toEqual(timeZoneChoices());
  });

  it("shows the two-factor section, its day in the user's time zone", () => {
    const on = {
      status: { state: 'on' as const, enabledAt: '2024-06-15T12:00:00.000Z', recoveryCodesLeft: 7 },
      available: true,
    };
    expect(accountPage(berlin, data, on, true).twoFactor).toEqual({
      available: true,
      state: 'on',
      enabledAt: { iso: '2024-06-15T12:00:00.000Z', text: '15 Jun 2024, 14:00' },
      recoveryCodesLeft: 7,
      recoveryCodeCount: 10,
    });
    expect(accountPage(berlin, data, { ...off, available: false }, true).twoFactor).toMatchObject({
      available: false,
      state: 'off',
      enabledAt: null,
    });
  });
});

describe('the tokens page', () => {
  const token: TokenView = {
    id: 5,
    name: 'Kodi',
    displayPrefix: 'cinelog_abcd1234',
    createdAt: '2024-06-15T12:00:00.000Z',
    lastUsedAt: null,
    expiresAt: '2024-09-13T12:00:00.000Z',
    state: 'active',
  };

  it("lists the tokens with their times in the user's time zone, and an empty form", () => {
    const page = tokensPage(berlin, [token], {});
    expect(page.tokens).toEqual([
      {
        id: 5,
        name: 'Kodi',
        displayPrefix: 'cinelog_abcd1234',
        state: 'active',
        created: { iso: '2024-06-15T12:00:00.000Z', text: '15 Jun 2024, 14:00' },
        lastUsed: null,
        expires: { iso: '2024-09-13T12:00:00.000Z', text: '13 Sept 2024, 14:00' },
      },
    ]);
    expect(page).toMatchObject({
      title: 'API tokens',
      values: { name: '', expiry: '90' },
      error: null,
      created: null,
    });
    expect(page.expiryOptions).toEqual([
      { value: '30', label: 'In 30 days' },
      { value: '90', label: 'In 90 days' },
      { value: '365', label: 'In 365 days' },
      { value: 'never', label: 'Never' },
    ]);
  });

  it('shows a new token once, and a refused form with its values', () => {
    expect(tokensPage(berlin, [token], { created: { value: 'cinelog_secret', token } }).created).toEqual({
      value: 'cinelog_secret',
      name: 'Kodi',
      expires: { iso: '2024-09-13T12:00:00.000Z', text: '13 Sept 2024, 14:00' },
    });
    const refused = tokensPage(berlin, [], { error: 'Too long.', values: { name: 'x', expiry: '30' } });
    expect(refused).toMatchObject({ error: 'Too long.', values: { name: 'x', expiry: '30' } });
  });
});

describe('the integrations page', () => {
  const plex: WebhookView = {
    server: 'plex',
    url: 'http://cinelog.test/api/webhooks/plex/abc',
    scrobbleWatches: true,
    scrobbleRatings: true,
    accountFilter: ['alice', 'Partner'],
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
  const report: InboxEntry = {
    receivedAt: '2024-06-15T12:00:00.000Z',
    server: 'plex',
    event: 'media.scrobble',
    account: 'alice',
    outcome: 'counted',
    reason: null,
    movie: { serviceId: 7, title: 'Heat' },
    watchDate: '2024-06-15',
    payload: null,
  };
  const here = { host: 'cinelog.test', origin: 'http://cinelog.test' };

  it("shows each server in the registry's order, with its URL, options and latest reports", () => {
    const reports = [aPage([report]), aPage([]), aPage([]), aPage([])];
    const page = integrationsPage(berlin, [plex], reports, null, 'http://cinelog.test', here);
    expect(page.servers.map((server) => server.key)).toEqual(['plex', 'jellyfin', 'emby', 'kodi']);
    expect(page.servers[0]).toMatchObject({
      name: 'Plex',
      url: plex.url,
      values: { watches: true, ratings: true, accounts: 'alice, Partner' },
      error: null,
      reports: [
        { received: '15 Jun 2024, 14:00', event: 'media.scrobble', movie: 'Heat', outcome: 'counted' },
      ],
    });
    // No URL yet: the defaults, watches on and ratings off.
    expect(page.servers[1]).toMatchObject({
      url: null,
      values: { watches: true, ratings: false, accounts: '' },
    });
    expect(page).toMatchObject({
      title: 'Integrations',
      retentionDays: 30,
      userName: 'alice',
      appUrlHint: null,
    });
  });

  it("shows a refused form's values on its server, and warns a browser on another address", () => {
    const failed = {
      server: 'jellyfin' as const,
      message: 'too many names',
      values: { watches: false, ratings: false, accounts: 'x' },
    };
    const elsewhere = { host: '192.168.1.5:8080', origin: 'http://192.168.1.5:8080' };
    const page = integrationsPage(berlin, [], [], failed, 'http://cinelog.test', elsewhere);
    expect(page.servers[1]).toMatchObject({ error: 'too many names', values: failed.values, reports: [] });
    expect(page.servers[0]?.error).toBeNull();
    expect(page.appUrlHint).toEqual({ appUrl: 'http://cinelog.test', seenAt: 'http://192.168.1.5:8080' });
  });
});

describe('the status page', () => {
  it("says when jobs failed and the last backup ran, in the administrator's time zone", () => {
    const status = {
      jobs: {
        concurrency: 1,
        counts: {},
        recentFailures: [
          {
            id: 1,
            kind: 'import',
            key: null,
            state: 'failed',
            attempts: 3,
            maxAttempts: 3,
            runAt: '2024-06-15T10:00:00.000Z',
            progress: null,
            result: null,
            error: 'boom',
            createdAt: '2024-06-15T10:00:00.000Z',
            startedAt: '2024-06-15T11:00:00.000Z',
            finishedAt: null,
          },
        ],
      },
      backups: {
        dir: '/backups',
        keep: 7,
        everyHours: 24,
        last: { finishedAt: '2024-06-15T03:00:00.000Z', result: null },
      },
    } as unknown as SystemStatus;
    const page = statusPage(status, 'Europe/Berlin');
    expect(page.failures).toMatchObject([{ id: 1, error: 'boom', when: '15 Jun 2024, 13:00' }]);
    expect(page.lastBackup).toBe('15 Jun 2024, 05:00');
    expect(statusPage({ ...status, backups: null }, 'UTC').lastBackup).toBeNull();
  });
});

describe('the users page', () => {
  it("marks the viewer and who has two-factor sign-in on, created in the viewer's time zone", () => {
    const bob = aUser({ id: 2, name: 'bob', email: 'bob@example.test', isAdmin: true });
    const page = usersPage(berlin, [berlin, bob], new Set([2]), { values: {} });
    expect(page).toEqual({
      title: 'Users',
      values: {},
      rows: [
        {
          name: 'alice',
          email: 'alice@example.test',
          isAdmin: false,
          isViewer: true,
          twoFactor: false,
          created: '1 Jan 2024, 01:00',
        },
        {
          name: 'bob',
          email: 'bob@example.test',
          isAdmin: true,
          isViewer: false,
          twoFactor: true,
          created: '1 Jan 2024, 01:00',
        },
      ],
    });
  });
});
