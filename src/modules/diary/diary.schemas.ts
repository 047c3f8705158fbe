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
  MAX_COMMENT_LENGTH,
  MAX_PLAYS,
  MAX_POSITION,
  MAX_RATING,
  MAX_TAG_LENGTH,
  MAX_TAGS_PER_ENTRY,
  MIN_RATING,
} from '../library/library.rules.js';
import { Movie } from '../movies/movies.schemas.js';

// The diary entry (issue 30): our own endpoints, with the limits of library.rules.ts.

const MAX_BATCH = 10_000;

const Rating = Type.Integer({ minimum: MIN_RATING, maximum: MAX_RATING, description: '1 to 10' });
const Tag = Type.String({
  minLength: 1,
  maxLength: MAX_TAG_LENGTH,
  description: `case-insensitive; trimmed; at most ${MAX_TAG_LENGTH} characters`,
});
const Tags = Type.Array(Tag, {
  maxItems: MAX_TAGS_PER_ENTRY,
  description: `at most ${MAX_TAGS_PER_ENTRY} per entry; spellings that differ only by case are one tag`,
});
const plays = Type.Integer({ minimum: 1, maximum: MAX_PLAYS });
const comment = Nullable(Type.String({ maxLength: MAX_COMMENT_LENGTH }));
const position = Type.Number({
  minimum: -MAX_POSITION,
  maximum: MAX_POSITION,
  description: 'orders different movies watched on the same date',
});

export const DiaryQuery = Type.Object({
  ...PageQuery,
  year: Type.Optional(Type.Integer({ minimum: 1000, maximum: 9999, description: 'entries of that year' })),
  month: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 12, description: 'entries of that month of `year` (needs year)' }),
  ),
  tag: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'entries with this tag (case-insensitive)' }),
  ),
  rating: Type.Optional({ ...Rating, description: "entries whose own rating is this (not the movie's)" }),
  rewatch: Type.Optional(
    Type.Boolean({ description: 'rewatches only (true) or first watches only (false)' }),
  ),
});

export const DiaryEntry = Type.Object({
  id: Type.Integer({ description: 'the entry id (PATCH and DELETE /diary/{id})' }),
  movie: Movie,
  watchedAt: Nullable({ ...CalendarDate, description: 'null: plays with an unknown date' }),
  plays: Type.Integer(),
  comment: Nullable(Type.String()),
  rating: Nullable({ ...Rating, description: "the entry's own rating; the movie's is movie.userRating" }),
  rewatch: Type.Boolean({
    description: 'as set, or else derived: an earlier dated entry of the same movie exists',
  }),
  tags: Type.Array(Type.String(), { description: 'as first written, in alphabetical order' }),
  position: Type.Number(),
});

export const DiaryPage = Type.Object({
  diary: Type.Array(DiaryEntry),
  currentPage: Type.Integer(),
  maxPage: Type.Integer(),
});

export const DiaryLogBody = Type.Array(
  Type.Object({
    serviceId: ServiceId,
    watchedAt: CalendarDate,
    plays: Type.Optional({ ...plays, default: 1 }),
    comment: Type.Optional({ ...comment, description: 'null or absent keeps an existing comment' }),
    rating: Type.Optional(
      Nullable({
        ...Rating,
        description: "the entry's rating and the movie's (userRating); null or absent keeps both",
      }),
    ),
    rewatch: Type.Optional(
      Nullable(Type.Boolean({ description: 'null: derived (an earlier dated entry); absent: kept' })),
    ),
    tags: Type.Optional({ ...Tags, description: "added to the entry's tags" }),
  }),
  { maxItems: MAX_BATCH },
);

export const DiaryEntryParams = Type.Object({
  ...UsernameParams.properties,
  id: Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'the entry id' }),
});

export const DiaryChangeBody = Type.Object(
  {
    watchedAt: Type.Optional({ ...CalendarDate, description: 'moves the entry' }),
    plays: Type.Optional(plays),
    comment: Type.Optional(comment),
    position: Type.Optional(position),
    rating: Type.Optional(
      Nullable({ ...Rating, description: "the entry's own rating (null: none); the movie's stays" }),
    ),
    rewatch: Type.Optional(Nullable(Type.Boolean({ description: 'null: derived again' }))),
    tags: Type.Optional({ ...Tags, description: "the entry's tags, instead of those it has" }),
  },
  { description: 'what changes; a field absent is kept' },
);

export const TagsPage = Type.Object({
  tags: Type.Array(
    Type.Object({
      name: Type.String({ description: 'as first written' }),
      count: Type.Integer({ description: 'entries with the tag' }),
    }),
    { description: 'most used first, then by name' },
  ),
});
