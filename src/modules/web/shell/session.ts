import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NewSession, SignedIn } from '../../auth/sessions.service.js';

// The browser's side of a sign-in: the session cookie, the one-time notice after a redirect, and
// where to go back to after signing in.

declare module 'fastify' {
  interface FastifyRequest {
    /** The web app's signed-in user (from the session cookie); never set on API routes. */
    signedIn: SignedIn | null;
  }
}

export const SESSION_COOKIE = 'cinelog_session';
const FLASH_COOKIE = 'cinelog_flash';

/** Cookies get `Secure` when the app is served over https (APP_URL). */
export interface CookieSettings {
  secureCookies: boolean;
}

/** A one-time notice shown by the next page rendered (after a redirect). */
export function setFlash(reply: FastifyReply, message: string, settings: CookieSettings): void {
  reply.setCookie(FLASH_COOKIE, Buffer.from(message).toString('base64url'), {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.secureCookies,
    maxAge: 60,
  });
}

/** Whether the request carries a notice (a page that shows one is made afresh, never kept). */
export const hasFlash = (request: FastifyRequest): boolean => request.cookies[FLASH_COOKIE] !== undefined;

/** The request's notice, if any, cleared so that it is shown once. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): string | null {
  const flash = request.cookies[FLASH_COOKIE];
  if (flash === undefined) return null;
  reply.clearCookie(FLASH_COOKIE, { path: '/' });
  return decodeFlash(flash);
}

function decodeFlash(value: string): string | null {
  const text = Buffer.from(value, 'base64url').toString('utf8');
  return text.length > 0 && text.length <= 300 ? text : null;
}

export function setSessionCookie(reply: FastifyReply, session: NewSession, settings: CookieSettings): void {
  reply.setCookie(SESSION_COOKIE, session.value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.secureCookies,
    // Without "remember me": a browser-session cookie, gone when the browser closes.
    ...(session.persistent && { expires: session.expiresAt }),
  });
}

export function clearSessionCookie(reply: FastifyReply, settings: CookieSettings): void {
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
