import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { forbidden, notFound, UnauthenticatedError } from '../../shared/errors.js';
import type { User, UsersService } from '../users/users.service.js';
import type { ApiTokensService, Caller } from './api-tokens.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the `authenticated` guard. */
    caller: Caller | null;
    /** The user named by the `{username}` path parameter, set by the access guards. */
    owner: User | null;
  }
}

/**
 * The token of a request. `Authorization: Bearer` or `X-Service-Token`, each sent once, never both;
 * other Authorization schemes (Basic for a reverse proxy) are ignored.
 */
export function credentialOf(request: FastifyRequest): string {
  const authorization = request.headers.authorization;
  const serviceToken = request.headers['x-service-token'];
  // Node keeps only the first of two Authorization headers, and joins two X-Service-Tokens: count
  // them as sent, so that two credentials are refused however they were sent.
  if (sentMoreThanOnce(request.raw.rawHeaders)) throw new UnauthenticatedError();
  let bearer: string | undefined;
  if (typeof authorization === 'string') {
    const match = /^\s*(\S+)(?:\s+(.*))?$/.exec(authorization);
    if (match?.[1]?.toLowerCase() === 'bearer') bearer = (match[2] ?? '').trim();
  }
  if (Array.isArray(serviceToken)) throw new UnauthenticatedError();
  if (bearer !== undefined && serviceToken !== undefined) throw new UnauthenticatedError();
  const token = bearer ?? serviceToken?.trim();
  if (!token) throw new UnauthenticatedError();
  return token;
}

/** Whether `Authorization` or `X-Service-Token` is among the raw headers more than once. */
function sentMoreThanOnce(rawHeaders: readonly string[]): boolean {
  let authorization = 0;
  let serviceToken = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // Lengths first: most headers are neither, and a length compares for free.
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization += 1;
    else if (name.length === 15 && name.toLowerCase() === 'x-service-token') serviceToken += 1;
  }
  return authorization > 1 || serviceToken > 1;
}

export interface AuthGuards {
  /** 401 unless the request carries an active token. Runs before the body is read. */
  authenticated: onRequestAsyncHookHandler;
  /** 404 for an unknown `{username}`, 403 if that user's privacy hides their data from the caller. */
  canRead: onRequestAsyncHookHandler;
  /** 404 for an unknown `{username}`, 403 unless the caller is that user. */
  canWrite: onRequestAsyncHookHandler;
}

export function createAuthGuards(deps: { tokens: ApiTokensService; users: UsersService }): AuthGuards {
  const loadOwner = async (request: FastifyRequest): Promise<User> => {
    const { username } = request.params as { username: string };
    // No user name holds a NUL (and PostgreSQL cannot even compare one): unknown.
    const owner = username.includes('\u0000') ? undefined : await deps.users.findByName(username);
    if (!owner) throw notFound('UserNotFound', `no user named "${username}"`);
    request.owner = owner;
    return owner;
  };

  return {
    async authenticated(request) {
      request.caller = await deps.tokens.authenticate(credentialOf(request));
    },
    async canRead(request) {
      const owner = await loadOwner(request);
      if (owner.privacy === 'private' && owner.id !== request.caller?.userId) {
        throw forbidden(`${owner.name}'s data is private`);
      }
    },
    async canWrite(request) {
      const owner = await loadOwner(request);
      if (owner.id !== request.caller?.userId) throw forbidden(`only ${owner.name} may change their data`);
    },
  };
}
