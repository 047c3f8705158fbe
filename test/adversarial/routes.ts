import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { JsonSchema } from './schema-arbitrary.js';

/** A route as the app registered it, with the request schemas the generators read. */
export interface CapturedRoute {
  method: string;
  /** The full path, `:name` for parameters, e.g. `/api/users/:username/history/movies`. */
  url: string;
  schema: {
    body?: JsonSchema;
    querystring?: JsonSchema;
    params?: JsonSchema;
    security?: unknown[];
    hide?: boolean;
  } | null;
}

/**
 * Builds an app while listening to every route it registers: Fastify publishes each new instance on
 * the `fastify.initialization` diagnostics channel before any plugin or route is added, and an
 * `onRoute` hook added there sees every route of every scope. So a new endpoint is covered by the
 * adversarial suite without a change to it.
 */
export async function withRouteCapture<T>(
  build: () => Promise<T>,
): Promise<{ built: T; routes: () => CapturedRoute[] }> {
  const options: RouteOptions[] = [];
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route) => {
      options.push(route);
    });
  };
  diagnostics.subscribe('fastify.initialization', onInit);
  let built: T;
  try {
    built = await build();
  } finally {
    diagnostics.unsubscribe('fastify.initialization', onInit);
  }
  // Read after the build: a scope's own onRoute hook may still replace a route's schema (web pages hide theirs).
  const routes = () =>
    options.flatMap((route) =>
      (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({
        method: method.toUpperCase(),
        url: route.url,
        schema: (route.schema as CapturedRoute['schema']) ?? null,
      })),
    );
  return { built, routes };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The API's webhooks: no credential, and bodies in any format, read by the drivers rather than a schema. */
export const isWebhook = (route: CapturedRoute) => route.url.startsWith('/api/webhook/');

/** Every route of the JSON API (`/api/...`), HEAD excluded (Fastify derives it from GET). */
export const apiRoutes = (routes: CapturedRoute[]) =>
  routes.filter((route) => route.url.startsWith('/api/') && route.method !== 'HEAD');

/** A DELETE of the one thing its path names (`DELETE .../lists/:id`): it reads no body. */
const deletesItsPath = (route: CapturedRoute) =>
  route.method === 'DELETE' && /\/:[A-Za-z0-9_]+$/.test(route.url);

/**
 * Why an API route cannot be fuzzed from its schema, or null: no schema at all, path parameters
 * without a params schema, or a method with a body (webhooks and a DELETE of what its path names
 * aside) and no body schema.
 */
export function missingSchema(route: CapturedRoute): string | null {
  const label = `${route.method} ${route.url}`;
  if (!route.schema) return `${label} has no schema`;
  if (route.url.includes(':') && !route.schema.params) return `${label} has no params schema`;
  if (BODY_METHODS.has(route.method) && !route.schema.body && !isWebhook(route) && !deletesItsPath(route))
    return `${label} has no body schema`;
  return null;
}

/** The parameter names of a route's path, in order. */
export const pathParameters = (url: string) =>
  [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
