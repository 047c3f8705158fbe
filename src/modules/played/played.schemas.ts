import { Type } from 'typebox';
import {
  CalendarDate,
  Nullable,
  PageQuery,
  ReleaseYearQuery,
  SearchQuery,
  ServiceId,
  SortOrder,
} from '../../shared/schemas.js';
import { LIST_DEFAULTS, MAX_COMMENT_LENGTH, MAX_PLAYS } from '../library/library.service.js';
import { Movie } from '../movies/movies.schemas.js';
import { MAX_BATCH, MovieListSortBy } from '../watchlist/watchlist.schemas.js';

export const PlayedQuery = Type.Object({
  search: SearchQuery,
  ...PageQuery,
  sortBy: Type.Optional({
    ...MovieListSortBy,
    default: LIST_DEFAULTS.played.sortBy,
    description: 'addedAt: by the most recent watch date; movies without the value sort last either way',
  }),
  sortOrder: Type.Optional({ ...SortOrder, default: LIST_DEFAULTS.played.sortOrder }),
  releaseYear: ReleaseYearQuery,
});

export const PlayedPage = Type.Object({
  played: Type.Array(
    Type.Object({
      movie: Movie,
      watchedDates: Type.Array(
        Type.Object({
          date: Nullable(CalendarDate),
          plays: Type.Integer(),
          comment: Nullable(Type.String()),
        }),
        { description: 'newest first; the unknown date (null) last' },
      ),
    }),
  ),
  currentPage: Type.Integer(),
  maxPage: Type.Integer(),
});

const serviceId = ServiceId;
const watchedAt = Nullable({ ...CalendarDate, description: 'null: a play with an unknown date' });
const plays = Type.Integer({ minimum: 1, maximum: MAX_PLAYS });
const comment = Type.Union([Type.String({ maxLength: MAX_COMMENT_LENGTH }), Type.Null()]);

export const PlayedAddBody = Type.Array(
  Type.Object({
    serviceId,
    watchDates: Type.Array(
      Type.Object({
        watchedAt,
        plays: Type.Optional({ ...plays, default: 1, description: 'added to the stored plays' }),
        comment: Type.Optional({ ...comment, description: 'null or absent keeps an existing comment' }),
      }),
      { maxItems: MAX_BATCH },
    ),
  }),
  { maxItems: MAX_BATCH },
);

export const PlayedReplaceBody = Type.Array(
  Type.Object({
    serviceId,
    watchDates: Type.Array(
      Type.Object({
        watchedAt,
        plays,
        comment: Type.Optional({ ...comment, description: 'absent: null' }),
      }),
      { maxItems: MAX_BATCH },
    ),
  }),
  { maxItems: MAX_BATCH },
);

export const PlayedDeleteBody = Type.Array(
  Type.Object({
    serviceId,
    watchDates: Type.Optional(
      Type.Array(watchedAt, {
        maxItems: MAX_BATCH,
        description: 'the dates to delete (null: the unknown date); absent or empty: every date of the movie',
      }),
    ),
  }),
  { maxItems: MAX_BATCH },
);
