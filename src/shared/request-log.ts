import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';

// Webhook URLs carry their secret UUID in the path, reset links their token: never log them.
const SECRET_PATH = /(\/webhook\/[^/]+\/|\/reset-password\/)[^/?]+/;

/** A request's URL as the log shows it: the secret of a webhook URL or a reset link is `***`. */
export const loggedUrl = (url: string) =>
  url.includes('/webhook/') || url.includes('/reset-password/') ? url.replace(SECRET_PATH, '$1***') : url;

/** What a request line says of the request: method, path and address, never headers (tokens, cookies). */
export const requestFields = (request: { method: string; url: string; ip?: string }) => ({
  method: request.method,
  url: loggedUrl(request.url),
  remoteAddress: request.ip,
});

type Destination = { write(line: string): unknown };

/**
 * Writes the line of a completed request: exactly what pino writes for
 * `log.info({ reqId, req, res, responseTime }, 'request completed')` with the serializers of
 * `loggerOptions`, to the logger's own destination after its level check, but built by hand: pino's
 * generic serialization of that object cost a quarter of a cached list page (measured with the bench).
 * Any other logger (tests pass their own) gets the plain call.
 */
export function requestCompletedLogger(
  log: FastifyBaseLogger,
): (request: FastifyRequest, reply: FastifyReply) => void {
  const logger = log as unknown as Partial<pino.Logger> & Record<symbol, unknown>;
  const destination = logger[pino.symbols.streamSym] as Destination | undefined;
  // `,"pid":...,"hostname":"..."`: the logger's base fields, serialised once by pino itself.
  const base = logger[pino.symbols.chindingsSym];
  const { isLevelEnabled } = logger;
  if (typeof destination?.write !== 'function' || typeof base !== 'string' || isLevelEnabled === undefined) {
    return (request, reply) =>
      request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
  return (request, reply) => {
    if (!isLevelEnabled.call(logger, 'info')) return;
    const address = request.ip === undefined ? '' : `,"remoteAddress":${JSON.stringify(request.ip)}`;
    destination.write(
      `{"level":30,"time":${Date.now()}${base},"reqId":${JSON.stringify(request.id)},` +
        `"req":{"method":${JSON.stringify(request.method)},"url":${JSON.stringify(loggedUrl(request.url))}${address}},` +
        `"res":{"statusCode":${reply.statusCode}},"responseTime":${reply.elapsedTime},"msg":"request completed"}\n`,
    );
  };
}

type LogMethod = (...args: unknown[]) => void;
type Bindings = Record<string, unknown>;

/**
 * The logger of one request (`request.log`, bound to its `reqId`), made only when the request logs
 * something other than its request line: most never do, and pino's child costs a few microseconds.
 */
class LazyChildLogger {
  #child: FastifyBaseLogger | null = null;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: object,
  ) {}
  #logger(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }
  get level(): string {
    return this.#logger().level;
  }
  set level(level: string) {
    this.#logger().level = level;
  }
  child(bindings: Bindings, options?: object) {
    return this.#logger().child(bindings, options);
  }
  // Methods, not arrow-function fields: nothing allocated per request but the object itself.
  fatal(...args: unknown[]): void {
    (this.#logger().fatal as LogMethod)(...args);
  }
  error(...args: unknown[]): void {
    (this.#logger().error as LogMethod)(...args);
  }
  warn(...args: unknown[]): void {
    (this.#logger().warn as LogMethod)(...args);
  }
  info(...args: unknown[]): void {
    (this.#logger().info as LogMethod)(...args);
  }
  debug(...args: unknown[]): void {
    (this.#logger().debug as LogMethod)(...args);
  }
  trace(...args: unknown[]): void {
    (this.#logger().trace as LogMethod)(...args);
  }
  silent(): void {}
}

/** Fastify's `childLoggerFactory`: a request's logger, made on first use (see LazyChildLogger). */
export function lazyChildLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: object,
): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
