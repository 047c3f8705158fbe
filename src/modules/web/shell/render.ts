import type { FastifyReply, FastifyRequest } from 'fastify';
import { PLAY_LIMITS } from '../../library/library.rules.js';
import type { User } from '../../users/users.service.js';
import { AnswerBuffers } from './answer-buffers.js';
import {
  CSRF_MARKER,
  decodePart,
  encodePart,
  PART_MARKER,
  type PagePart,
  sourceId,
  splicePart,
  WholePageCache,
  withToken,
} from './page-parts.js';
import { type CookieSettings, hasFlash, takeFlash } from './session.js';

/** What every page's layout needs besides the page's own data. */
export interface PageSettings extends CookieSettings {
  registrationOpen: boolean;
  /** TMDB_API_KEY is set: without it, administrators see a notice on every page. */
  tmdbConfigured: boolean;
  /** AUTH_PROXY_LOGOUT_URL: Sign out ends there, at the sign-in proxy, rather than on /login. */
  proxyLogoutUrl: string | null;
}

/** What the shell gives every area's routes: the settings, the renderer, the cached parts of pages. */
export interface Pages {
  settings: PageSettings;
  render: Renderer;
  parts: PageParts;
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

/**
 * A part of a page kept as bytes in a service's cache beside the bytes it is made from (the history's
 * entries, in the library's page cache): made by a partial on its own, its forms' CSRF tokens left as
 * markers that each answer fills in (page-parts.ts).
 */
export interface PageParts {
  /** The bytes to keep: `meta` (what the page needs to know of the part) and the partial with `data`. */
  encode(template: string, meta: object, data: Record<string, unknown>): string;
  /** The kept bytes as a part for `Renderer.cached` or `withPart` (cut once per Buffer). */
  decode<Meta>(bytes: Buffer): PagePart<Meta>;
}

/** Parts made by `partial` (a partial rendered to a string on its own). */
export function createPageParts(partial: (template: string, data: object) => string): PageParts {
  return {
    // The partial writes `it.csrfMarker` where a form's token goes (no user text can hold it).
    encode: (template, meta, data) =>
      encodePart(meta, partial(template, { ...data, csrfMarker: CSRF_MARKER })),
    decode: decodePart,
  };
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
  // Each kept page is joined with its token in a buffer used again after the answer (answer-buffers.ts).
  const answerBuffers = new AnswerBuffers();
  render.cached = async (request, reply, { template, sources, extra = '', data, part }) => {
    const user = request.signedIn?.user;
    if (user === undefined || hasFlash(request)) {
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
    const token = reply.generateCsrf();
    const page = withToken(pieces, token, (size) => answerBuffers.take(size, reply.raw));
    return reply.type('text/html; charset=utf-8').send(page);
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
  const flash = takeFlash(request, reply);
  return {
    ...data,
    user: request.signedIn?.user ?? null,
    csrfToken,
    flash,
    registrationOpen: settings.registrationOpen,
    tmdbConfigured: settings.tmdbConfigured,
    path: request.url.split('?')[0],
    // This page's address with its query: where a card's heart comes back to (`back`, safeNext).
    pageUrl: request.url,
    // What a play may be (the forms' min, max and maxlength): the library's rules.
    limits: PLAY_LIMITS,
  };
}
