import { type Kysely, sql } from 'kysely';
import { isValidTimeZone } from '../../config.js';
import type { Database, UserRow } from '../../db/schema.js';
import { inTransaction, isPostgres } from '../../db/transaction.js';
import type { Outbox } from '../../integrations/mail/outbox.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, ValidationError } from '../../shared/errors.js';
import type { CredentialsListener } from './credentials.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import * as users from './users.repository.js';

export type Privacy = 'private' | 'users';
export type RatingScale = 'stars' | 'points';
export const RATING_SCALES: readonly RatingScale[] = ['stars', 'points'];

/** What the rest of the app knows of a user: never the password hash. */
export interface User {
  id: number;
  name: string;
  email: string;
  isAdmin: boolean;
  privacy: Privacy;
  timezone: string;
  watchlistAutoRemove: boolean;
  /** How the web app shows ratings: 0.5-5 half stars, or points out of 10. */
  ratingScale: RatingScale;
  /** Anyone with the link may read the user's history (only while privacy is `users`). */
  publicProfile: boolean;
  /**
   * The user's data version (it moves with every write to their lists: lockAndMarkChanged) as read
   * with this row. Rows kept between writes (SQLite) may be older than the last write: the list caches
   * ask the library for the version as it stands (page-cache.ts), never this field alone.
   */
  dataVersionAsRead: number;
  createdAt: string;
}

/**
 * Whether anyone with the link may read `owner`'s public profile: they turned it on, and their privacy
 * lets other people read their lists at all (`users`); a private library has no public page.
 */
export const hasPublicProfile = (owner: User) => owner.publicProfile && owner.privacy === 'users';

export const toUser = (row: UserRow): User => ({
  id: row.id,
  name: row.name,
  email: row.email,
  isAdmin: row.is_admin === 1,
  privacy: row.privacy,
  timezone: row.timezone,
  watchlistAutoRemove: row.watchlist_auto_remove === 1,
  ratingScale: row.rating_scale,
  publicProfile: row.public_profile === 1,
  dataVersionAsRead: row.data_version,
  createdAt: row.created_at,
});

// Names appear in URL paths: keep them to characters that need no escaping.
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

/** The users' name rule: what `create` accepts as a name. */
export const isValidUserName = (name: string) => NAME_PATTERN.test(name);

export class UserNotFoundError extends ValidationError {
  constructor(name: string) {
    super(`no user named "${name}"`);
  }
}

/** First-run setup was already done: someone created the first account in the meantime. */
export class SetupDoneError extends ValidationError {
  constructor() {
    super('this installation already has an administrator; sign in instead');
  }
}

/** The change would leave the installation without an administrator: 409. */
export class LastAdminError extends AppError {
  constructor(name: string, action: 'delete' | 'demote') {
    super(
      409,
      'Conflict',
      `${name} is the last administrator: make another user an administrator before ${action === 'delete' ? 'deleting' : 'demoting'} ${name}`,
    );
  }
}

/** What deleting a user removed with them. */
export interface DeletedUser {
  name: string;
  /** Every row deleted, per table (the user's own row excluded). */
  rows: users.OwnedCounts;
}

/** What a user owns, as the confirmation and the report of a deletion name it. */
export function describeOwned(rows: Partial<users.OwnedCounts>): string {
  const count = (n: number | undefined, one: string, many: string) => `${n ?? 0} ${n === 1 ? one : many}`;
  return [
    count(rows.watch_dates, 'watch date', 'watch dates'),
    count(rows.watchlist, 'movie on the watchlist', 'movies on the watchlist'),
    count(rows.ratings, 'rating', 'ratings'),
    count(rows.api_tokens, 'API token', 'API tokens'),
    count(rows.webhooks, 'webhook', 'webhooks'),
  ].join(', ');
}

export interface NewUserInput {
  name: string;
  email: string;
  password: string;
  isAdmin?: boolean;
  timezone?: string;
}

export interface UsersService {
  create(input: NewUserInput): Promise<User>;
  /**
   * The user named `input.name` in any letter case, or a new one made from `input` (`created`). Two at
   * once for one name make one user. Refuses (ValidationError) what `create` refuses.
   */
  findOrCreate(input: NewUserInput): Promise<{ user: User; created: boolean }>;
  /** First-run setup: creates the admin account only while no user exists at all (atomically). */
  createFirstAdmin(input: Omit<NewUserInput, 'isAdmin'>): Promise<User>;
  count(): Promise<number>;
  list(): Promise<User[]>;
  findByName(name: string): Promise<User | undefined>;
  /** The user with this name in any letter case (a reverse proxy's spelling may differ from ours). */
  findByNameAnyCase(name: string): Promise<User | undefined>;
  /** The user with this id, read now (its data version included). */
  findById(id: number): Promise<User | undefined>;
  /** The user a sign-in form's name (or e-mail) and password belong to; null when they do not match. */
  verifyLogin(login: string, password: string): Promise<User | null>;
  /**
   * verifyLogin, and the id of the account the login names (by name in any letter case, or by
   * e-mail) even when the password is wrong; null when it names nobody.
   */
  checkLogin(login: string, password: string): Promise<{ user: User | null; accountId: number | null }>;
  /**
   * A normal password change: needs the current one. API tokens stay active; the user's other web
   * sessions (all but `keepSessionId`) end and open forgot-password links die, in one transaction.
   * Returns how many sessions ended.
   */
  changePassword(userId: number, current: string, next: string, keepSessionId?: number): Promise<number>;
  /**
   * The user's own change of their e-mail address: needs the current password (a stolen session
   * alone cannot take the account over through forgot-password). Open forgot-password links die, and
   * the old address gets a notice when mail is set up. Returns the user as changed.
   */
  changeEmail(userId: number, currentPassword: string, email: string): Promise<User>;
  update(
    name: string,
    changes: {
      timezone?: string;
      privacy?: string;
      email?: string;
      watchlistAutoRemove?: boolean;
      ratingScale?: string;
      publicProfile?: boolean;
      /** Never false for the last administrator (LastAdminError, and nothing changes). */
      isAdmin?: boolean;
    },
  ): Promise<User>;
  /**
   * Deletes the user and everything they own (plays, watchlist, ratings, tokens, sessions, webhooks and
   * their inbox, two-factor data, open reset links, attempt counters) in one transaction. The movies
   * stay: the catalogue is shared. Never deletes the last administrator.
   */
  delete(name: string): Promise<DeletedUser>;
  /** How many rows of each kind the user owns: what `delete` would remove. */
  owned(name: string): Promise<Record<users.UserOwnedTable, number>>;
  /**
   * Sets a new password as a recovery (`cinelog user reset-password`): every API token and web session
   * of the account is revoked, and two-factor sign-in is turned off (the owner may have lost the app).
   */
  resetPassword(
    name: string,
    password: string,
  ): Promise<{ revokedTokens: number; twoFactorTurnedOff: boolean }>;
}

export function createUsersService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  defaultTimezone: string;
  /** Mails about the account (the e-mail change notice); none from the command line. */
  notices?: { outbox: Outbox; appUrl: string };
  /** Told of each change of a password or e-mail address, in its transaction: ends sign-ins (auth). */
  credentials: CredentialsListener;
}): UsersService {
  const { db, clock } = deps;
  // Every request naming a user reads it: between two writes to users, from memory (SQLite). A write
  // to the user's lists (the data version alone) keeps it: a stream of one-play POSTs reads no row.
  const byName = users.keptUsersByName<User | undefined>(db);

  const requireUser = async (name: string) => {
    const row = await users.findUserByName(db, name);
    if (!row) throw new UserNotFoundError(name);
    return row;
  };

  /**
   * `first`: only while no user exists (setup). `or existing`: the user of that name (any letter case)
   * if there is one, found in the same transaction that would insert it, so that two at once make one.
   */
  const createUser = async (
    input: NewUserInput,
    mode: 'new' | 'first' | 'or existing',
  ): Promise<{ user: User; created: boolean }> => {
    if (!isValidUserName(input.name)) {
      throw new ValidationError(
        'name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
      );
    }
    const email = normalEmail(input.email);
    validatePassword(input.password);
    const timezone = input.timezone ?? deps.defaultTimezone;
    if (!isValidTimeZone(timezone)) throw new ValidationError(`unknown time zone "${timezone}"`);
    const passwordHash = await hashPassword(input.password);
    const now = clock.now().toISOString();
    return inTransaction(db, async (trx) => {
      // Two creates at once (two setup forms, two first sign-ins through single sign-on, two admins'
      // forms): the second waits for the first and finds the name or address taken, where both would
      // find it free and the second insert break the unique index. Accounts are made rarely.
      // (SQLite: every write transaction already holds the database's write lock from its start.)
      await lockUsers(trx);
      if (mode === 'first' && (await users.countUsers(trx)) > 0) throw new SetupDoneError();
      if (mode === 'or existing') {
        const existing = await users.findUserByNameAnyCase(trx, input.name);
        if (existing) return { user: toUser(existing), created: false };
      }
      const taken = await users.nameOrEmailTaken(trx, input.name, email);
      if (taken) throw new ValidationError(`a user with this ${taken} already exists`);
      const row = await users.insertUser(trx, {
        name: input.name,
        email,
        password_hash: passwordHash,
        is_admin: input.isAdmin ? 1 : 0,
        privacy: 'users',
        timezone,
        watchlist_auto_remove: 1,
        created_at: now,
        updated_at: now,
      });
      return { user: toUser(row), created: true };
    });
  };

  const checkLogin = async (login: string, password: string) => {
    const row = await users.findUserByLogin(db, login.trim());
    // Hash even for an unknown name, so the answer takes as long as for a known one.
    const verified = await verifyPassword(row?.password_hash ?? DUMMY_HASH, password);
    return { user: row && verified ? toUser(row) : null, accountId: row?.id ?? null };
  };

  return {
    create: async (input) => (await createUser(input, 'new')).user,
    createFirstAdmin: async (input) => (await createUser({ ...input, isAdmin: true }, 'first')).user,
    findOrCreate: (input) => createUser(input, 'or existing'),

    count: () => users.countUsers(db),

    async list() {
      return (await users.listUsers(db)).map(toUser);
    },

    async findByNameAnyCase(name) {
      const row = await users.findUserByNameAnyCase(db, name);
      return row && toUser(row);
    },

    async findById(id) {
      const row = await users.findUserById(db, id);
      return row && toUser(row);
    },

    findByName: (name) =>
      byName.get(name, async () => {
        const row = await users.findUserByName(db, name);
        return row && toUser(row);
      }),

    verifyLogin: async (login, password) => (await checkLogin(login, password)).user,
    checkLogin,

    async changePassword(userId, current, next, keepSessionId) {
      const row = await users.findUserById(db, userId);
      if (!row || !(await verifyPassword(row.password_hash, current))) {
        throw new ValidationError('the current password is not correct');
      }
      validatePassword(next);
      const passwordHash = await hashPassword(next);
      return inTransaction(db, async (trx) => {
        const now = clock.now().toISOString();
        await users.updateUser(trx, userId, { password_hash: passwordHash, updated_at: now });
        const change = { kind: 'password changed', keepSessionId } as const;
        return (await deps.credentials(trx, userId, change, now)).sessionsEnded;
      });
    },

    async changeEmail(userId, currentPassword, newEmail) {
      const row = await users.findUserById(db, userId);
      if (!row) throw new ValidationError('no such user');
      const email = normalEmail(newEmail);
      if (email === row.email) throw new ValidationError('this is already your e-mail address');
      if (!(await verifyPassword(row.password_hash, currentPassword))) {
        throw new ValidationError('the current password is not correct');
      }
      const now = clock.now();
      await inTransaction(db, async (trx) => {
        // Checked under the lock, so a create or change with the same address at the same moment waits.
        await lockUsers(trx);
        if (await users.emailTakenByAnother(trx, email, row.id)) {
          throw new ValidationError('a user with this email already exists');
        }
        await users.updateUser(trx, row.id, { email, updated_at: now.toISOString() });
        await deps.credentials(trx, row.id, { kind: 'email changed' }, now.toISOString());
      });
      const notices = deps.notices;
      if (notices) {
        const mail = { to: row.email, ...emailChangedMail(notices.appUrl, row.name, row.email, email, now) };
        notices.outbox.later(() =>
          notices.outbox.deliver(mail, { userId: row.id }, 'e-mail change notice not sent'),
        );
      }
      return toUser((await users.findUserById(db, row.id))!);
    },

    async update(name, changes) {
      const row = await requireUser(name);
      if (changes.timezone !== undefined && !isValidTimeZone(changes.timezone)) {
        throw new ValidationError(`unknown time zone "${changes.timezone}"`);
      }
      if (changes.privacy !== undefined && changes.privacy !== 'private' && changes.privacy !== 'users') {
        throw new ValidationError('privacy must be "private" or "users"');
      }
      if (changes.ratingScale !== undefined && !RATING_SCALES.includes(changes.ratingScale as RatingScale)) {
        throw new ValidationError('the rating scale must be "stars" or "points"');
      }
      const email = changes.email === undefined ? undefined : normalEmail(changes.email);
      await inTransaction(db, async (trx) => {
        if (email !== undefined || changes.isAdmin === false) await lockUsers(trx);
        if (email !== undefined && (await users.emailTakenByAnother(trx, email, row.id))) {
          throw new ValidationError('a user with this email already exists');
        }
        if (changes.isAdmin === false) {
          const current = await users.findUserById(trx, row.id);
          if (current?.is_admin === 1 && (await users.countAdmins(trx)) <= 1) {
            throw new LastAdminError(current.name, 'demote');
          }
        }
        await users.updateUser(trx, row.id, {
          ...(changes.isAdmin !== undefined && { is_admin: changes.isAdmin ? 1 : 0 }),
          ...(changes.timezone !== undefined && { timezone: changes.timezone }),
          ...(changes.privacy !== undefined && { privacy: changes.privacy as Privacy }),
          ...(email !== undefined && { email }),
          ...(changes.watchlistAutoRemove !== undefined && {
            watchlist_auto_remove: changes.watchlistAutoRemove ? 1 : 0,
          }),
          ...(changes.ratingScale !== undefined && { rating_scale: changes.ratingScale as RatingScale }),
          ...(changes.publicProfile !== undefined && { public_profile: changes.publicProfile ? 1 : 0 }),
          updated_at: clock.now().toISOString(),
        });
        if (email !== undefined && email !== row.email) {
          await deps.credentials(trx, row.id, { kind: 'email changed' }, clock.now().toISOString());
        }
      });
      return toUser((await users.findUserById(db, row.id))!);
    },

    async delete(name) {
      const row = await requireUser(name);
      const rows = await inTransaction(db, async (trx) => {
        await lockUsers(trx);
        const current = await users.findUserById(trx, row.id);
        if (!current) throw new UserNotFoundError(name);
        if (current.is_admin === 1 && (await users.countAdmins(trx)) <= 1) {
          throw new LastAdminError(current.name, 'delete');
        }
        await users.deleteUserRateLimits(
          trx,
          row.id,
          await users.webhookUuidsOf(trx, row.id),
          await users.feedUuidsOf(trx, row.id),
        );
        return users.deleteUserAndOwned(trx, row.id);
      });
      return { name: row.name, rows };
    },

    async owned(name) {
      return users.countOwned(db, (await requireUser(name)).id);
    },

    async resetPassword(name, password) {
      validatePassword(password);
      const row = await requireUser(name);
      const passwordHash = await hashPassword(password);
      return inTransaction(db, async (trx) => {
        const now = clock.now().toISOString();
        await users.updateUser(trx, row.id, { password_hash: passwordHash, updated_at: now });
        const change = { kind: 'recovered', turnOffTwoFactor: true } as const;
        const { tokensRevoked, twoFactorTurnedOff } = await deps.credentials(trx, row.id, change, now);
        return { revokedTokens: tokensRevoked, twoFactorTurnedOff };
      });
    },
  };
}

/**
 * Role changes and deletions wait for each other, so two of them at once cannot both see "another
 * administrator is left". (SQLite: every write transaction already holds the database's write lock.)
 */
async function lockUsers(trx: Kysely<Database>): Promise<void> {
  if (isPostgres(trx)) await sql`lock table users in share row exclusive mode`.execute(trx);
}

// An argon2id hash of a random password, to verify against when the sign-in names nobody.
const DUMMY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$WStVdrHb7O1NOv/oWGjckA$Aeft4XErOSKPFSx85NPClZ0Z95hUFtciOBjULagInPo';

/** An e-mail address as stored: trimmed, lower case; a ValidationError unless it looks like one. */
function normalEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(email) || email.length > 254)
    throw new ValidationError('email must be an e-mail address');
  return email;
}

function emailChangedMail(appUrl: string, name: string, from: string, to: string, at: Date) {
  return {
    subject: 'The e-mail address of your cinelog account was changed',
    text: [
      `The e-mail address of the cinelog account "${name}" at ${appUrl} was changed`,
      `from ${from} to ${to} on ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
      '',
      'If you made this change, there is nothing to do.',
      '',
      'If you did not, someone who knows your password changed it: ask the administrator of this',
      'cinelog to set a new password for your account (cinelog user reset-password), which signs',
      'it out everywhere and revokes its API tokens, and to set your address back.',
      '',
    ].join('\n'),
  };
}

function validatePassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new ValidationError(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
}
