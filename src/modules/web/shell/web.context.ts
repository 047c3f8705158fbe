import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden } from '../../../shared/errors.js';
import type { NewSession, SignedIn } from '../../auth/sessions.service.js';
import { PLAY_LIMITS } from '../../library/library.rules.js';
import type { User } from '../../users/users.service.js';
import {
  CSRF_MARKER,
  PART_MARKER,
  type PagePart,
  sourceId,
  splicePart,
  WholePageCache,
  withToken,
} from './page-parts.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The web app's signed-in user (from the session cookie); never set on API routes. */
    signedIn: SignedIn | null;
  }
}

export const SESSION_COOKIE = 'cinelog_session';
const FLASH_COOKIE = 'cinelog_flash';

/** What every page's layout needs besides the page's own data. */
export interface PageSettings {
  /** Cookies get `Secure` when the app is served over https (APP_URL). */
  secureCookies: boolean;
  registrationOpen: boolean;
  /** TMDB_API_KEY is set: without it, administrators see a notice on every page. */
  tmdbConfigured: boolean;
}

export interface Renderer {
  (
    request: FastifyRequest,
    reply: FastifyReply,
    template: string,
    data?: Record<string, unknown>,
    status?: number,
  ): FastifyReply;
  /** The page with a cached part (page-parts.ts) where its template writes `it.part`. */
  withPart(
    request: FastifyRequest,
    reply: FastifyReply,
    template: string,
    data: Record<string, unknown>,
    part: PagePart<unknown>,
  ): Promise<FastifyReply>;
  /**
   * A signed-in user's page, kept whole (page-parts.ts, `WholePageCache`) and made by `data` only when
   * not kept. `data` may read only what the key holds: the address, the signed-in user, `sources` (the
   * cached bytes the page shows, as the services hand them back) and `extra`. A page with a flash
   * notice is made afresh and not kept.
   */
  cached(
    request: FastifyRequest,
    reply: FastifyReply,
    page: {
      template: string;
      sources: readonly object[];
      extra?: string;
      data: () => Promise<Record<string, unknown>> | Record<string, unknown>;
      /** A cached part of the page (`it.part` in its template), one of the sources. */
      part?: PagePart<unknown>;
    },
  ): Promise<FastifyReply>;
}

export function createRenderer(settings: PageSettings): Renderer {
  const render: Renderer = (request, reply, template, data = {}, status = 200) =>
    reply.code(status).view(template, pageData(request, reply, data, settings, reply.generateCsrf()));
  render.withPart = async (request, reply, template, data, part) => {
    const context = pageData(request, reply, { ...data, part: PART_MARKER }, settings, reply.generateCsrf());
    const html = await reply.viewAsync(template, context);
    return reply.type('text/html; charset=utf-8').send(splicePart(html, part, context.csrfToken));
  };
  const pages = new WholePageCache();
  render.cached = async (request, reply, { template, sources, extra = '', data, part }) => {
    const user = request.signedIn?.user;
    if (user === undefined || request.cookies[FLASH_COOKIE] !== undefined) {
      return part
        ? render.withPart(request, reply, template, await data(), part)
        : render(request, reply, template, await data());
    }
    let key = `${template}|${request.url}|${userKey(user)}|${extra}`;
    for (const source of sources) key += `|${sourceId(source)}`;
    let pieces = pages.get(key);
    if (pieces === undefined) {
      // The marker where each token goes: the page is kept, each answer gets its own token.
      const context: Record<string, unknown> = pageData(request, reply, await data(), settings, CSRF_MARKER);
      if (part) context.part = PART_MARKER;
      const html = await reply.viewAsync(template, context);
      pieces = pages.set(key, part ? splicePart(html, part, CSRF_MARKER) : Buffer.from(html));
    }
    return reply.type('text/html; charset=utf-8').send(withToken(pieces, reply.generateCsrf()));
  };
  return render;
}

// The user as a page sees them (every field: name and role in the layout, rating scale, time zone...),
// once per user object (the sessions' cache hands back the same one while nothing changed).
const userKeys = new WeakMap<User, string>();
function userKey(user: User): string {
  let key = userKeys.get(user);
  if (key === undefined) {
    key = JSON.stringify(user);
    userKeys.set(user, key);
  }
  return key;
}

/** The page's data and what the layout needs: the user, the CSRF token (or its marker), the flash notice. */
function pageData(
  request: FastifyRequest,
  reply: FastifyReply,
  data: Record<string, unknown>,
  settings: PageSettings,
  csrfToken: string,
) {
  const flash = request.cookies[FLASH_COOKIE];
  if (flash !== undefined) reply.clearCookie(FLASH_COOKIE, { path: '/' });
  return {
    ...data,
    user: request.signedIn?.user ?? null,
    csrfToken,
    flash: flash === undefined ? null : decodeFlash(flash),
    registrationOpen: settings.registrationOpen,
    tmdbConfigured: settings.tmdbConfigured,
    path: request.url.split('?')[0],
    // What a play may be (the forms' min, max and maxlength): the library's rules.
    limits: PLAY_LIMITS,
  };
}

/** A one-time notice shown by the next page rendered (after a redirect). */
export function setFlash(reply: FastifyReply, message: string, settings: PageSettings): void {
  reply.setCookie(FLASH_COOKIE, Buffer.from(message).toString('base64url'), {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.secureCookies,
    maxAge: 60,
  });
}

function decodeFlash(value: string): string | null {
  const text = Buffer.from(value, 'base64url').toString('utf8');
  return text.length > 0 && text.length <= 300 ? text : null;
}

export function setSessionCookie(reply: FastifyReply, session: NewSession, settings: PageSettings): void {
  reply.setCookie(SESSION_COOKIE, session.value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.secureCookies,
    // Without "remember me": a browser-session cookie, gone when the browser closes.
    ...(session.persistent && { expires: session.expiresAt }),
  });
}

export function clearSessionCookie(reply: FastifyReply, settings: PageSettings): void {
  reply.clearCookie(SESSION_COOKIE, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.secureCookies,
  });
}

const SELF = 'http://cinelog.invalid';

/**
 * A local path to return to after signing in, built from the parsed URL (so it is what a browser
 * would make of it, percent-encoded and safe for a Location header); anything that would leave the
 * site (`//host`, `/\t/host`, `/.//host`, another scheme) or is not a path gives `/`.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.length > 1000) return '/';
  let url: URL;
  try {
    url = new URL(next, SELF);
  } catch {
    return '/';
  }
  const path = `${url.pathname}${url.search}${url.hash}`;
  // A path starting with two slashes (after dot segments are resolved) names another host.
  return url.origin === SELF && !path.startsWith('//') ? path : '/';
}

/** preHandler of every page that needs a signed-in user: others go to the sign-in page. */
export async function requireSignIn(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.signedIn) return;
  const target = request.method === 'GET' ? `/login?next=${encodeURIComponent(request.url)}` : '/login';
  return reply.redirect(target, 303);
}

/** preHandler after requireSignIn: pages for administrators only; anyone else gets a 403 page. */
export async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (!currentUser(request).user.isAdmin) throw forbidden('Only an administrator can open this page.');
}

/** The signed-in user; only for handlers behind requireSignIn. */
export function currentUser(request: FastifyRequest): SignedIn {
  if (!request.signedIn) throw new Error('currentUser() on a page without requireSignIn');
  return request.signedIn;
}
