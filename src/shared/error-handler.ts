import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
  onRequestHookHandler,
} from 'fastify';
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
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
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
  };
  // An address no route serves is answered before its body is read, and the connection closes after
  // it, so that a large or slow body sent there costs nothing. The hook is the not-found route's own
  // (Fastify runs an `onRequest` of these options after the instance's hooks): a global hook asking
  // `request.is404` ran on every routed request too, for nothing.
  const answerUnread: onRequestHookHandler = (request, reply) => {
    if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined)
      reply.header('connection', 'close');
    notFound(request, reply);
  };
  // Fastify's types name only preValidation and preHandler; it takes any lifecycle hook here.
  app.setNotFoundHandler({ onRequest: answerUnread } as { preHandler?: never }, notFound);
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

/** The code of a 4xx raised by Fastify or a plugin (not by cinelog), by its status. */
const CODES_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  403: 'Forbidden',
  404: 'RouteNotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  408: 'RequestTimeout',
  409: 'Conflict',
  411: 'LengthRequired',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  414: 'UriTooLong',
  415: 'UnsupportedMediaType',
  416: 'RangeNotSatisfiable',
  417: 'ExpectationFailed',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
};

function clientErrorCode(error: FastifyError): ErrorCode {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'PayloadTooLarge';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'UnsupportedMediaType';
    default:
      if (error.statusCode === 400) return 'InvalidJson';
      return CODES_BY_STATUS[error.statusCode ?? 400] ?? 'InvalidRequestBody';
  }
}

function clientErrorMessage(error: FastifyError): string {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'request body is too large';
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'send the body as application/json';
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'the request body is empty; send a JSON body';
  return error.message;
}

const envelope = (code: ErrorCode, message: string) => JSON.stringify({ error: code, message });

/**
 * Errors Fastify finds before any route or hook runs, in the envelope: a path with a broken
 * percent-encoding (400) or a path parameter longer than Fastify's limit of 100 characters (414).
 * The path is not echoed (it may hold a webhook's secret).
 */
const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, request, untyped) => {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const reply = untyped as FastifyReply;
  reply
    .code(tooLong ? 414 : 400)
    .header('x-request-id', request.id)
    .header('x-content-type-options', 'nosniff')
    .header('content-type', 'application/json; charset=utf-8')
    .send(
      tooLong
        ? envelope('UriTooLong', 'a segment of the address is longer than 100 characters')
        : envelope('InvalidPathParameter', 'the address holds a malformed percent-encoding'),
    );
};

/**
 * Requests Node's HTTP parser refuses (no route, no hook ever sees them): malformed HTTP (400),
 * headers too large (431), a request that did not arrive within the request timeout (408). Answered
 * in the envelope, then the connection closes. Logged at trace level by error code only: the error
 * holds the raw bytes of the request, which may carry a token or a webhook's secret.
 */
function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'RequestTimeout' as const, 'the request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [
            431,
            'Request Header Fields Too Large',
            'RequestHeaderFieldsTooLarge' as const,
            'the request headers are too large',
          ]
        : [400, 'Bad Request', 'MalformedRequest' as const, 'the request is not well-formed HTTP/1.1'];
  this.log.trace({ code: error.code }, 'client error');
  if (socket.writable) {
    const body = envelope(code, message);
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify options that put the errors found before routing into the envelope. */
export const earlyErrorOptions = { frameworkErrors, clientErrorHandler } satisfies FastifyServerOptions;

/**
 * An `Expect` header other than `100-continue`: Node answers 417 with an empty body unless asked;
 * this answers in the envelope.
 */
export function answerExpectations(server: Server): void {
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = envelope('ExpectationFailed', 'the only expectation this server meets is 100-continue');
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-content-type-options': 'nosniff',
      connection: 'close',
    });
    response.end(body);
  });
}
