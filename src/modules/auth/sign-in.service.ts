import type { HitCounter } from '../../db/rate-limit-store.js';
import type { User, UsersService } from '../users/users.service.js';
import { countAttempt, LOGIN_LIMITS } from './attempt-limits.js';

export interface SignInService {
  /**
   * The user a sign-in form's login (name or e-mail) and password belong to, or null. Throws
   * TooManyAttemptsError (429) for an address past its limit, whatever the password, and for a wrong
   * password to an account past its limit. A right password is never refused because of other
   * addresses' guesses: nobody can lock an owner out (docs/web-app.md, "Sign-in limits").
   */
  verify(login: string, password: string, address: string): Promise<User | null>;
}

export function createSignInService(deps: { users: UsersService; hits: HitCounter }): SignInService {
  const { users, hits } = deps;
  return {
    async verify(login, password, address) {
      await countAttempt(hits, [{ key: `login-address:${address}`, limit: LOGIN_LIMITS.perAddress }]);
      const { user, accountId } = await users.checkLogin(login, password);
      if (user) return user;
      // One count per account, whatever spelling named it; a login naming nobody is counted by its text.
      const account = accountId === null ? `login:${login.trim().toLowerCase()}` : `user:${accountId}`;
      await countAttempt(hits, [{ key: `login-account:${account}`, limit: LOGIN_LIMITS.perAccount }]);
      return null;
    },
  };
}
