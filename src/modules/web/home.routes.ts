import type { App } from '../../shared/http.js';
import { MEDIA_SERVER_KEYS, namesOf } from '../scrobble/media-servers.js';
import type { WebContext } from './web.plugin.js';

/** `/`: the first-run setup while nobody has an account, the sign-in page for strangers, home otherwise. */
export function homeRoutes(app: App, web: WebContext): void {
  const { users, render } = web;

  app.get('/', async (request, reply) => {
    if (!request.signedIn) {
      return reply.redirect((await users.count()) === 0 ? '/setup' : '/login', 303);
    }
    return render(request, reply, 'home', { title: 'Home', mediaServers: namesOf(MEDIA_SERVER_KEYS) });
  });
}
