import { Type } from 'typebox';
import { CalendarDate, PageQuery, SearchQuery, ServiceId, SortOrder } from '../../shared/schemas.js';
import { LIST_DEFAULTS } from '../library/library.service.js';
import { Movie, ServiceIdItem } from '../movies/movies.schemas.js';
import { MAX_BATCH } from '../watchlist/watchlist.schemas.js';

export const RatingsQuery = Type.Object({
  search: SearchQuery,
  ...PageQuery,
  sortBy: Type.Optional(
    Type.Union(
      [Type.Literal('ratedAt'), Type.Literal('rating'), Type.Literal('title'), Type.Literal('releaseDate')],
      {
        default: LIST_DEFAULTS.ratings.sortBy,
        description:
          'ratedAt: when the rating was last set; movies without a release date sort last either way; ties by title',
      },
    ),
  ),
  sortOrder: Type.Optional({ ...SortOrder, default: LIST_DEFAULTS.ratings.sortOrder }),
});

const Rating = Type.Integer({ minimum: 1, maximum: 10, description: '1 to 10 (five stars in half stars)' });

export const RatingsPage = Type.Object({
  ratings: Type.Array(
    Type.Object({
      movie: Movie,
      rating: Rating,
      ratedAt: { ...CalendarDate, description: "the day the rating was last set, in the owner's time zone" },
    }),
  ),
  currentPage: Type.Integer(),
  maxPage: Type.Integer(),
});

export const RatingsSetBody = Type.Array(Type.Object({ serviceId: ServiceId, rating: Rating }), {
  maxItems: MAX_BATCH,
  description: 'a movie named twice gets the last of its ratings',
});

export const RatingsDeleteBody = Type.Array(ServiceIdItem, { maxItems: MAX_BATCH });
