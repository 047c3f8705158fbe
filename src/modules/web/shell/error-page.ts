import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/errors.js';
import { TooManyAttemptsError } from '../../auth/attempt-limits.js';
import type { Renderer } from './render.js';

/** An error shown as a page with a title of its own (thrown where no route renders, as in a hook). */
export class TitledPageError extends AppError {
  constructor(
    statusCode: number,
    readonly title: string,
    message: string,
  ) {
    super(statusCode, statusCode === 409 ? 'Conflict' : 'Forbidden', message);
  }
}

const CSRF_CODES = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);

/** The web app's errors are pages, not the API's JSON envelope; a 5xx shows no details. */
export function webErrorHandler(render: Renderer) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const page = (status: number, title: string, message: string) =>
      render(request, reply, 'error', { title, message }, status);

    if (CSRF_CODES.has(error.code)) {
      return page(
        403,
        'Form expired',
        'This form has expired or did not come from this site. Go back, reload the page and send it again.',
      );
    }
    if (error instanceof TooManyAttemptsError) {
      reply.header('retry-after', String(error.retryAfterSeconds));
      return page(
        429,
        'Too many attempts',
        `Too many attempts. Try again in ${minutes(error.retryAfterSeconds)}.`,
      );
    }
    if (error instanceof TitledPageError) return page(error.statusCode, error.title, error.message);
    if (error instanceof AppError) return page(error.statusCode, 'Something is not right', error.message);
    if (error.validation)
      return page(400, 'Something is not right', `The form is not valid: ${error.message}`);
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return page(status, 'Something is not right', error.message);
    request.log.error({ err: error }, 'unhandled error');
    return page(
      500,
      'Something went wrong',
      'Something went wrong on our side; the server log has the details.',
    );
  };
}

const minutes = (seconds: number) => {
  const count = Math.max(1, Math.ceil(seconds / 60));
  return count === 1 ? 'a minute' : `${count} minutes`;
};
