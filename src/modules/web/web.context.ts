import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NewSession, SignedIn } from '../auth/sessions.service.js';
import { PART_MARKER, type PagePart, splicePart } from './page-parts.js';

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
}

export function createRenderer(settings: PageSettings): Renderer {
  const render: Renderer = (request, reply, template, data = {}, status = 200) =>
    reply.code(status).view(template, pageData(request, reply, data, settings));
  render.withPart = async (request, reply, template, data, part) => {
    const context = pageData(request, reply, { ...data, part: PART_MARKER }, settings);
    const html = await reply.viewAsync(template, context);
    return reply.type('text/html; charset=utf-8').send(splicePart(html, part, context.csrfToken));
  };
  return render;
}

/** The page's data and what the layout needs: the user, a CSRF token, the flash notice. */
function pageData(
  request: FastifyRequest,
  reply: FastifyReply,
  data: Record<string, unknown>,
  settings: PageSettings,
) {
  const flash = request.cookies[FLASH_COOKIE];
  if (flash !== undefined) reply.clearCookie(FLASH_COOKIE, { path: '/' });
  return {
    ...data,
    user: request.signedIn?.user ?? null,
    csrfToken: reply.generateCsrf(),
    flash: flash === undefined ? null : decodeFlash(flash),
    registrationOpen: settings.registrationOpen,
    tmdbConfigured: settings.tmdbConfigured,
    path: request.url.split('?')[0],
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

/** The signed-in user; only for handlers behind requireSignIn. */
export function currentUser(request: FastifyRequest): SignedIn {
  if (!request.signedIn) throw new Error('currentUser() on a page without requireSignIn');
  return request.signedIn;
}
