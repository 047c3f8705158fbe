import { BlockList } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthProxyConfig } from '../../../config.js';
import type { ForwardAuthService } from '../../auth/forward-auth.service.js';
import type { SessionsService } from '../../auth/sessions.service.js';
import { TitledPageError } from './error-page.js';
import { type CookieSettings, clearSessionCookie, SESSION_COOKIE, setSessionCookie } from './session.js';

/** Forward auth as the web module is given it (null when AUTH_PROXY_HEADER is not set). */
export interface ForwardAuth {
  config: AuthProxyConfig;
  service: ForwardAuthService;
}

/** Addresses already warned about; past this many, the oldest is forgotten (and may be warned again). */
const WARNED_ADDRESSES = 1000;

/**
 * The reverse proxy's sign-in (docs/reverse-proxy.md, "Signing in at the proxy"), as an onRequest hook
 * after the session cookie's: registered only when AUTH_PROXY_HEADER is set, so that without it no
 * page does any of this work.
 *
 * - The header counts only from a trusted proxy, judged by the TCP peer (`request.socket`), never by
 *   X-Forwarded-For (TRUST_PROXY): the proxy that sets the header is the one connected to us. From
 *   anyone else it is as if it were not there, and the address is logged once.
 * - It makes the same session as the sign-in form (cookie, CSRF, everything after it as today), on the
 *   first request, and again whenever it names another user than the session's (that session ends).
 * - A trusted request without the header keeps today's rules: a session cookie still signs in.
 */
export function registerForwardAuth(
  app: FastifyInstance,
  forwardAuth: ForwardAuth,
  deps: { sessions: SessionsService; settings: CookieSettings },
): void {
  const { config, service } = forwardAuth;
  const { sessions, settings } = deps;
  const trusted = new BlockList();
  for (const network of config.trusted) trusted.addSubnet(network.address, network.prefix, network.family);
  const firstTime = firstSightings(WARNED_ADDRESSES);

  const isTrusted = (address: string | undefined) =>
    address !== undefined && trusted.check(address, address.includes(':') ? 'ipv6' : 'ipv4');

  const warnOnce = (request: FastifyRequest, address: string) => {
    if (!firstTime(address)) return;
    // Not the header's value: only that it came from where it may not.
    request.log.warn(
      { forwardAuth: 'untrusted', peer: address },
      `forward auth: ${config.header} from ${address}, which is not in AUTH_PROXY_TRUSTED: ignored (logged once per address)`,
    );
  };

  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers[config.header];
    if (header === undefined) return;
    const peer = request.socket.remoteAddress ?? 'unknown';
    if (!isTrusted(request.socket.remoteAddress)) return warnOnce(request, peer);
    // A proxy that signed nobody in may still send the header, empty (nginx's `$user` unset).
    const name = (Array.isArray(header) ? header.join(', ') : header).trim();
    if (name === '') return;

    const before = request.signedIn;
    if (before && before.user.name.toLowerCase() === name.toLowerCase()) return;

    const emailHeader = config.emailHeader === null ? undefined : request.headers[config.emailHeader];
    const email =
      typeof emailHeader === 'string' && emailHeader.trim() !== '' ? emailHeader.trim() : undefined;
    const outcome = await service.userFor(name, email);
    // No account at all yet: first-run setup comes first, as without the proxy.
    if (outcome.kind === 'setup') return;

    // The proxy says someone else is at this browser: whoever was signed in here is not any more.
    const previous = request.cookies[SESSION_COOKIE];
    if (previous !== undefined) await sessions.end(previous);
    request.signedIn = null;
    if (outcome.kind === 'refused') {
      clearSessionCookie(reply, settings);
      // Not the name: the page says it to the person; the log says only that someone was turned away.
      request.log.warn(
        { forwardAuth: 'refused' },
        'forward auth: no session for the name the proxy sent (no account, or none could be made)',
      );
      throw new TitledPageError(403, 'No cinelog account', outcome.message);
    }
    const session = await sessions.start(outcome.user.id, false);
    setSessionCookie(reply, session, settings);
    request.signedIn = await sessions.resolve(session.value);
    request.log.info(
      { forwardAuth: outcome.created ? 'account made' : 'signed in', userId: outcome.user.id },
      outcome.created ? 'forward auth: an account was made for a new user' : 'forward auth: signed in',
    );
    if (before && request.method !== 'GET' && request.method !== 'HEAD') {
      // The form came from a page of the user signed in before: it is not sent as the new one.
      throw new TitledPageError(
        409,
        'Signed in as another user',
        `The sign-in proxy now names ${outcome.user.name}, so you are signed in as ${outcome.user.name}. The form, from a page of ${before.user.name}, was not sent: open the page again.`,
      );
    }
  });
}

/**
 * Whether a key is seen for the first time, remembering at most `limit` keys: past it, the oldest is
 * forgotten (seen again later, it counts as new). Memory stays bounded whatever the addresses.
 */
export function firstSightings(limit: number): (key: string) => boolean {
  const seen = new Set<string>();
  return (key) => {
    if (seen.has(key)) return false;
    if (seen.size >= limit) seen.delete(seen.values().next().value as string);
    seen.add(key);
    return true;
  };
}
