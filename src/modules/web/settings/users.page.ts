import type { User } from '../../users/users.service.js';
import { formatDateTime } from '../shell/format.js';

/**
 * Settings → users, as `viewer` (an administrator) sees it: every account, whether it has two-factor
 * sign-in on (`withTwoFactor`: their ids), created in the viewer's time zone; and the new-user form
 * (`values`, `error` of a refused one). Pure: the users in, the template's data out.
 */
export function usersPage(
  viewer: User,
  users: User[],
  withTwoFactor: ReadonlySet<number>,
  data: { values: Record<string, string | undefined>; error?: string },
) {
  const rows = users.map((user) => ({
    name: user.name,
    email: user.email,
    isAdmin: user.isAdmin,
    isViewer: user.id === viewer.id,
    twoFactor: withTwoFactor.has(user.id),
    created: formatDateTime(user.createdAt, viewer.timezone),
  }));
  return { title: 'Users', rows, ...data };
}
