/** Stable error codes of the `{ error, message }` envelope. Clients may switch on them. */
export type ErrorCode =
  | 'InvalidRequestBody'
  | 'InvalidJson'
  | 'InvalidQueryParameter'
  | 'InvalidPathParameter'
  | 'UnsupportedMediaType'
  | 'PayloadTooLarge'
  | 'RouteNotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestTimeout'
  | 'Conflict'
  | 'LengthRequired'
  | 'PreconditionFailed'
  | 'UriTooLong'
  | 'RangeNotSatisfiable'
  | 'ExpectationFailed'
  | 'RequestHeaderFieldsTooLarge'
  | 'MalformedRequest'
  | 'UserNotFound'
  | 'MovieNotFound'
  | 'ImageNotFound'
  | 'PersonNotFound'
  | 'EntryNotFound'
  | 'ListNotFound'
  | 'ImportNotFound'
  | 'WebhookNotFound'
  | 'InvalidWebhookPayload'
  | 'FeedNotFound'
  | 'Forbidden'
  | 'ProviderIdNotFound'
  | 'ProviderNotConfigured'
  | 'ProviderUnavailable'
  | 'TooManyRequests'
  | 'InternalError';

/** An error the API answers with its own status and envelope. Anything else becomes a 500. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The caller is not authenticated: 401, no body, `WWW-Authenticate: Bearer`. Never says why. */
export class UnauthenticatedError extends Error {
  override name = 'UnauthenticatedError';
  constructor() {
    super('authentication required');
  }
}

export const badRequest = (code: ErrorCode, message: string) => new AppError(400, code, message);
export const forbidden = (message: string) => new AppError(403, 'Forbidden', message);
export const notFound = (code: ErrorCode, message: string) => new AppError(404, code, message);

/** Thrown by domain code when a command-line or service input is invalid (maps to 400 on HTTP). */
export class ValidationError extends AppError {
  constructor(message: string) {
    super(400, 'InvalidRequestBody', message);
  }
}
