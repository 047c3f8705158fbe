import { Type } from 'typebox';
import {
  CalendarDate,
  MAX_ID,
  Nullable,
  PageQuery,
  ServiceId,
  UsernameParams,
} from '../../shared/schemas.js';
import {
  MAX_LIST_DESCRIPTION_LENGTH,
  MAX_LIST_MOVIES,
  MAX_LIST_NAME_LENGTH,
  MAX_LIST_NOTE_LENGTH,
} from '../library/library.rules.js';
import { Movie, ServiceIdItem } from '../movies/movies.schemas.js';
import { MAX_BATCH } from '../watchlist/watchlist.schemas.js';

export const ListParams = Type.Object({
  ...UsernameParams.properties,
  id: Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'id of the list' }),
});

const Name = Type.String({
  minLength: 1,
  maxLength: MAX_LIST_NAME_LENGTH,
  description: `1 to ${MAX_LIST_NAME_LENGTH} characters, not only spaces`,
});
const Description = Nullable(
  Type.String({
    maxLength: MAX_LIST_DESCRIPTION_LENGTH,
    description: `at most ${MAX_LIST_DESCRIPTION_LENGTH} characters`,
  }),
);
const Ranked = Type.Boolean({ description: 'the positions are a ranking' });
const Visibility = Type.Union([Type.Literal('private'), Type.Literal('users'), Type.Literal('public')], {
  description:
    "who may read the list besides its owner: no one, any signed-in user, or anyone (the API asks a token of everyone; nobody reads another user's lists while that user's privacy is private)",
});

export const ListSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  ranked: Type.Boolean(),
  visibility: Visibility,
  movieCount: Type.Integer(),
  createdAt: Type.String({ format: 'date-time', description: 'ISO-8601 UTC timestamp' }),
  updatedAt: Type.String({
    format: 'date-time',
    description: 'ISO-8601 UTC timestamp of the last change to the list or its movies',
  }),
});

export const ListsResponse = Type.Object({ lists: Type.Array(ListSummary) });

export const ListQuery = Type.Object({ ...PageQuery });

export const ListWithMovies = Type.Object({
  ...ListSummary.properties,
  movies: Type.Array(
    Type.Object({
      movie: Movie,
      position: Type.Integer({ description: '1..n, no gaps' }),
      note: Nullable(Type.String()),
      addedAt: {
        ...CalendarDate,
        description: "the day the movie was put on the list, in the owner's time zone",
      },
    }),
  ),
  currentPage: Type.Integer(),
  maxPage: Type.Integer(),
});

export const CreateListBody = Type.Object({
  name: Name,
  description: Type.Optional(Description),
  ranked: Type.Optional({ ...Ranked, default: false }),
  visibility: Type.Optional({ ...Visibility, default: 'private' }),
});

export const ChangeListBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    ranked: Type.Optional(Ranked),
    visibility: Type.Optional(Visibility),
  },
  { description: 'what is given changes; what is absent stays' },
);

export const ListMoviesPutBody = Type.Array(
  Type.Object({
    serviceId: ServiceId,
    position: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LIST_MOVIES,
        description:
          'where the movie goes (the others shift; past the end is the end); absent: a new movie goes at the end, one on the list stays where it is',
      }),
    ),
    note: Type.Optional(
      Nullable(
        Type.String({
          maxLength: MAX_LIST_NOTE_LENGTH,
          description: `at most ${MAX_LIST_NOTE_LENGTH} characters; null clears it, absent keeps it`,
        }),
      ),
    ),
  }),
  { maxItems: MAX_BATCH, description: 'applied in order, all or nothing' },
);

export const ListMoviesDeleteBody = Type.Array(ServiceIdItem, { maxItems: MAX_BATCH });
