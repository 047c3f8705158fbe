import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, UnauthenticatedError } from './errors.js';

const VALIDATION_CODES: Record<string, ErrorCode> = {
  body: 'InvalidRequestBody',
  querystring: 'InvalidQueryParameter',
  params: 'InvalidPathParameter',
  headers: 'InvalidRequestBody',
};

/** The one place errors become responses: `{ error, message }`, 401 bare, 5xx details hidden. */
export function registerErrorHandling(
  app: FastifyInstance,
  options: { htmlNotFound?: (reply: FastifyReply) => FastifyReply } = {},
): void {
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    // A browser that asked for a page outside the API gets a page; everyone else the JSON envelope.
    if (
      options.htmlNotFound &&
      !request.url.startsWith('/api/') &&
      request.headers.accept?.includes('text/html')
    ) {
      return options.htmlNotFound(reply);
    }
    return reply
      .code(404)
      .send({ error: 'RouteNotFound', message: `no route ${request.method} ${request.url.split('?')[0]}` });
  });
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof UnauthenticatedError) {
    return reply.code(401).header('www-authenticate', 'Bearer').send();
  }
  if (error instanceof AppError) {
    return reply.code(error.statusCode).send({ error: error.code, message: error.message });
  }
  if (error.validation) {
    const part = error.validationContext ?? 'body';
    return reply
      .code(400)
      .send({ error: VALIDATION_CODES[part] ?? 'InvalidRequestBody', message: error.message });
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return reply.code(status).send({ error: clientErrorCode(error), message: clientErrorMessage(error) });
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send({ error: 'InternalError', message: 'internal error; see the server log' });
}

function clientErrorCode(error: FastifyError): ErrorCode {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'PayloadTooLarge';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'UnsupportedMediaType';
    default:
      if (error.statusCode === 429) return 'TooManyRequests';
      return error.statusCode === 400 ? 'InvalidJson' : 'InvalidRequestBody';
  }
}

function clientErrorMessage(error: FastifyError): string {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'request body is too large';
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'send the body as application/json';
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'the request body is empty; send a JSON body';
  return error.message;
}
