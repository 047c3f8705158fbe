import { Type } from 'typebox';
import { CalendarDate, PageQuery, SearchQuery, ServiceId, SortOrder } from '../../shared/schemas.js';
import { MAX_COMMENT_LENGTH, MAX_PLAYS, MAX_POSITION } from '../library/library.rules.js';
import { LIST_DEFAULTS } from '../library/library.service.js';
import { Movie } from '../movies/movies.schemas.js';

const MAX_BATCH = 10_000;

export const HistoryQuery = Type.Object({
  search: SearchQuery,
  ...PageQuery,
  sortOrder: Type.Optional({
    ...SortOrder,
    default: LIST_DEFAULTS.history.sortOrder,
    description: 'by watch date; default desc (newest first)',
  }),
});

export const HistoryPage = Type.Object({
  watchlist: Type.Array(Type.Object({ movie: Movie, watchedAt: CalendarDate }), {
    description: 'the watch entries (the property really is named watchlist)',
  }),
  currentPage: Type.Integer(),
  maxPage: Type.Integer(),
});

const serviceId = ServiceId;
const plays = Type.Integer({ minimum: 1, maximum: MAX_PLAYS });
const comment = Type.Union([Type.String({ maxLength: MAX_COMMENT_LENGTH }), Type.Null()]);
// The library's limits (library.rules.ts); the date's (not after the owner's today, not before 1870)
// depend on the owner and are the writer's: a 400 naming the entry.
const position = Type.Number({
  minimum: -MAX_POSITION,
  maximum: MAX_POSITION,
  description: 'orders different movies watched on the same date',
});

export const HistoryAddBody = Type.Array(
  Type.Object({
    serviceId,
    watchedAt: CalendarDate,
    plays: Type.Optional({ ...plays, default: 1 }),
    comment: Type.Optional({ ...comment, description: 'null or absent keeps an existing comment' }),
    position: Type.Optional(Type.Union([position, Type.Null()], { description: 'null or absent: 1' })),
  }),
  { maxItems: MAX_BATCH },
);

export const HistoryReplaceBody = Type.Array(
  Type.Object({
    serviceId,
    watchedAt: CalendarDate,
    plays,
    comment: Type.Optional({ ...comment, description: 'absent: null' }),
    position: Type.Optional({ ...position, description: 'absent: 1' }),
  }),
  { maxItems: MAX_BATCH },
);

export const HistoryDeleteBody = Type.Array(
  Type.Object({
    serviceId,
    watchedAt: Type.Optional({ ...CalendarDate, description: 'absent: every watch date of the movie' }),
  }),
  { maxItems: MAX_BATCH },
);
