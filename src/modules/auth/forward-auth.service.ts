import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../shared/errors.js';
import { isValidUserName, type User, type UsersService } from '../users/users.service.js';

/**
 * Who a trusted reverse proxy's header names (AUTH_PROXY_HEADER, docs/reverse-proxy.md): the account,
 * made on first sight with AUTH_PROXY_AUTO_REGISTER; or why there is none, said to the person as it is.
 */
export type ForwardAuthOutcome =
  | { kind: 'user'; user: User; created: boolean }
  | { kind: 'refused'; message: string }
  /** No account exists at all: first-run setup comes first (the header is not used until then). */
  | { kind: 'setup' };

export interface ForwardAuthService {
  /** `email`: the e-mail header's value, used only when the account is made. */
  userFor(name: string, email: string | undefined): Promise<ForwardAuthOutcome>;
}

export function createForwardAuthService(deps: {
  users: UsersService;
  autoRegister: boolean;
}): ForwardAuthService {
  const { users, autoRegister } = deps;
  return {
    async userFor(name, email) {
      if (!isValidUserName(name)) {
        return {
          kind: 'refused',
          message: `The sign-in proxy names the user "${name}", which is not a valid cinelog user name (1-64 letters, digits, ".", "_" or "-", starting with a letter or digit). Ask the administrator.`,
        };
      }
      const known = await users.findByNameAnyCase(name);
      if (known) return { kind: 'user', user: known, created: false };
      if ((await users.count()) === 0) return { kind: 'setup' };
      if (!autoRegister) {
        return {
          kind: 'refused',
          message: `There is no cinelog account named ${name}: ask the administrator to create one.`,
        };
      }
      try {
        // Found again in the transaction that would make it: two first requests at once make one.
        return {
          kind: 'user',
          ...(await users.findOrCreate({
            name,
            // The users table needs an address; `.invalid` is reserved and never delivered to.
            email: email ?? `${name.toLowerCase()}@forward-auth.invalid`,
            // Nobody knows it: the account signs in through the proxy only, until an administrator sets
            // a password (`cinelog user reset-password`).
            password: randomBytes(32).toString('base64url'),
          })),
        };
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return {
          kind: 'refused',
          message: `No cinelog account could be made for ${name}: ${error.message}. Ask the administrator.`,
        };
      }
    },
  };
}
