import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden } from '../../../shared/errors.js';
import type { SignedIn } from '../../auth/sessions.service.js';

// The guards every area's pages share (route files never import one another's).

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
