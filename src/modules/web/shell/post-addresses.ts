import type { FastifyInstance } from 'fastify';

/**
 * A form answered with an error stays at its POST address (`/settings/account/password`); a reload, a
 * bookmark or a shared link then asks for that address with GET. Rather than a 404, each POST address
 * without a page of its own answers GET with a 303 to the nearest address above it that is a page
 * (`/settings/account`), keeping the request's own values for parameters (`/settings/tokens/7/revoke`
 * → `/settings/tokens`, `/movies/12/log` → `/movies/12` where that is a page).
 */
export function redirectPostOnlyAddresses(app: FastifyInstance, postUrls: readonly string[]): void {
  for (const url of new Set(postUrls)) {
    if (app.hasRoute({ method: 'GET', url })) continue;
    const segments = url.split('/');
    let depth = segments.length - 1;
    while (depth > 1 && !app.hasRoute({ method: 'GET', url: segments.slice(0, depth).join('/') })) depth--;
    app.get(url, async (request, reply) => {
      const path = request.url.split('?')[0]!;
      const target = depth <= 1 ? '/' : path.split('/').slice(0, depth).join('/');
      return reply.redirect(target, 303);
    });
  }
}
