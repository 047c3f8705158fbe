import { Type } from 'typebox';
import { CalendarDate, PageQuery } from '../../shared/schemas.js';
import { Movie, ServiceIdItem } from '../movies/movies.schemas.js';
import { MAX_BATCH } from '../watchlist/watchlist.schemas.js';

export const LikesQuery = Type.Object({ ...PageQuery });

export const LikesPage = Type.Object({
  likes: Type.Array(
    Type.Object({
      movie: Movie,
      likedAt: {
        ...CalendarDate,
        description: "the day the movie was first liked, in the owner's time zone",
      },
    }),
  ),
  currentPage: Type.Integer(),
  maxPage: Type.Integer(),
});

export const LikesBody = Type.Array(ServiceIdItem, { maxItems: MAX_BATCH });
