import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';

/** Path parameters that are secrets: a webhook URL's UUID, a reset link's token. */
const SECRET_PARAMS = new Set(['uuid', 'token']);
/** A path segment of an unrouted request at least this long may be a secret (UUIDs: 36, tokens: 43). */
const LONG_SEGMENT = 16;

interface RouteLogging {
  /** The logged path with every secret parameter as `***`; null when the route has none (the raw path is kept). */
  path: ((params: Record<string, string>) => string) | null;
  /** Query parameters whose values are logged: the route's declared ones. */
  queryKeys: ReadonlySet<string>;
}

const routes = new Map<string, RouteLogging>();

/** How a route's requests are logged, worked out once per route pattern. */
function routeLogging(pattern: string, querySchema: unknown): RouteLogging {
  let logging = routes.get(pattern);
  if (logging === undefined) {
    const parts = pattern.split(/(:[A-Za-z0-9_]+)/);
    const secret = parts.some((part) => part.startsWith(':') && SECRET_PARAMS.has(part.slice(1)));
    const properties = (querySchema as { properties?: Record<string, unknown> } | undefined)?.properties;
    logging = {
      path: secret
        ? (params) =>
            parts
              .map((part) => {
                if (!part.startsWith(':')) return part;
                const name = part.slice(1);
                return SECRET_PARAMS.has(name) ? '***' : encodeURIComponent(params[name] ?? '');
              })
              .join('')
        : null,
      queryKeys: new Set(Object.keys(properties ?? {}).filter((key) => !SECRET_PARAMS.has(key))),
    };
    routes.set(pattern, logging);
  }
  return logging;
}

/** A query string with the values of keys not in `keys` as `***` (all of them when `keys` is empty). */
function loggedQuery(query: string, keys: ReadonlySet<string>): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      let key: string;
      try {
        key = decodeURIComponent(pair.slice(0, equals));
      } catch {
        key = '';
      }
      return keys.has(key) ? pair : `${pair.slice(0, equals)}=***`;
    })
    .join('&');
}

type LoggedRequest = Pick<FastifyRequest, 'url'> & {
  routeOptions?: { url?: string; schema?: { querystring?: unknown } };
  params?: unknown;
};

/**
 * A request's URL as the log shows it, decided by what the router matched, so that no spelling of a
 * secret gets through: on a route with a secret parameter (a webhook's UUID, a reset link's token)
 * the path is rebuilt from the route with that parameter as `***`; on a request no route matched,
 * every path segment long enough to be a secret is `***`. Query values are kept only for the
 * parameters the route declares (`?page=2`); any other value (`?token=...`) is `***`.
 */
export function loggedUrl(request: LoggedRequest): string {
  const { url } = request;
  const mark = url.indexOf('?');
  const rawPath = mark === -1 ? url : url.slice(0, mark);
  const pattern = request.routeOptions?.url;
  const logging =
    pattern === undefined ? null : routeLogging(pattern, request.routeOptions?.schema?.querystring);
  let path: string;
  if (logging === null) {
    path = rawPath
      .split('/')
      .map((segment) => (segment.length >= LONG_SEGMENT ? '***' : segment))
      .join('/');
  } else {
    path = logging.path ? logging.path((request.params ?? {}) as Record<string, string>) : rawPath;
  }
  if (mark === -1) return path;
  return `${path}?${loggedQuery(url.slice(mark + 1), logging?.queryKeys ?? EMPTY)}`;
}

const EMPTY: ReadonlySet<string> = new Set();

/** What a request line says of the request: method, path and address, never headers (tokens, cookies). */
export const requestFields = (request: LoggedRequest & { method: string; ip?: string }) => ({
  method: request.method,
  url: loggedUrl(request),
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
        `"req":{"method":${JSON.stringify(request.method)},"url":${JSON.stringify(loggedUrl(request))}${address}},` +
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
