import { ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { SetupDoneError } from '../../users/users.service.js';
import { NewAccountForm, timeZoneChoices } from '../shell/forms.js';
import type { Pages } from '../shell/render.js';
import { setFlash, setSessionCookie } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';

/** The services these pages use. */
export type SetupDeps = Pick<WebDeps, 'users' | 'sessions' | 'defaultTimezone'>;

/** First run: while no user exists, `/` leads here, and the form creates the administrator. */
export function setupRoutes(
  app: App,
  { render, settings }: Pages,
  { users, sessions, defaultTimezone }: SetupDeps,
): void {
  app.get('/setup', async (request, reply) => {
    if ((await users.count()) > 0) return reply.redirect('/login', 303);
    return render(request, reply, 'setup', {
      title: 'Set up cinelog',
      values: { timezone: defaultTimezone, guessTimezone: true },
      timeZones: timeZoneChoices(),
    });
  });

  app.post('/setup', { schema: { body: NewAccountForm } }, async (request, reply) => {
    const form = request.body;
    try {
      if (form.password !== form.passwordConfirm) throw new ValidationError('the two passwords differ');
      const admin = await users.createFirstAdmin({
        name: form.name.trim(),
        email: form.email,
        password: form.password,
        timezone: form.timezone,
      });
      setSessionCookie(reply, await sessions.start(admin.id, false), settings);
      setFlash(reply, `Welcome, ${admin.name}. Your administrator account is ready.`, settings);
      return reply.redirect('/', 303);
    } catch (error) {
      if (error instanceof SetupDoneError) {
        setFlash(reply, 'cinelog is already set up: sign in.', settings);
        return reply.redirect('/login', 303);
      }
      if (!(error instanceof ValidationError)) throw error;
      return render(
        request,
        reply,
        'setup',
        {
          title: 'Set up cinelog',
          error: error.message,
          values: { ...form, password: '', passwordConfirm: '' },
          timeZones: timeZoneChoices(),
        },
        400,
      );
    }
  });
}
