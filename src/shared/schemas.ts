import { type Static, type TSchema, Type } from 'typebox';
import { DEFAULT_LIMIT, DEFAULT_PAGE, MAX_LIMIT, MAX_PAGE } from './pagination.js';

/** `T` or null, as a plain JSON-schema type list (fast to validate and to serialise). */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, ...rest } = schema as unknown as { type: string };
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
}

/** Ids are 32-bit integers in every engine; a larger number names nothing. */
export const MAX_ID = 2_147_483_647;
export const ServiceId = Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'movie id (ids.service)' });

export const CalendarDate = Type.String({
  format: 'date',
  description: 'calendar date YYYY-MM-DD',
  examples: ['2024-03-09'],
});

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'stable PascalCase error code', examples: ['InvalidRequestBody'] }),
    message: Type.String({ description: 'what went wrong, for a person' }),
  },
  { description: 'The one error envelope' },
);

export const UsernameParams = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64, description: 'name of the user' }),
});

export const SortOrder = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);
export type SortOrder = Static<typeof SortOrder>;

export const PageQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE,
      default: DEFAULT_PAGE,
      description: `page number, 1 to ${MAX_PAGE}`,
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT,
      default: DEFAULT_LIMIT,
      description: `page size, 1 to ${MAX_LIMIT}`,
    }),
  ),
};

export const SearchQuery = Type.Optional(
  Type.String({
    maxLength: 200,
    description: 'case-insensitive substring of the title or original title',
  }),
);

export const ReleaseYearQuery = Type.Optional(
  Type.Integer({ minimum: 1000, maximum: 9999, description: 'four-digit release year' }),
);

/** Response schemas shared by every authenticated route, keyed by status. */
export const errorResponses = {
  400: { ...ErrorBody, description: 'request payload, query or header incorrect' },
  401: Type.Null({ description: 'credential missing or invalid, or both credential forms sent; no body' }),
  403: { ...ErrorBody, description: 'the caller may not access this resource' },
  404: { ...ErrorBody, description: 'user, movie or route not found' },
  413: { ...ErrorBody, description: 'request body too large' },
} as const;

export const NoContent = Type.Null({ description: 'success, no content' });
