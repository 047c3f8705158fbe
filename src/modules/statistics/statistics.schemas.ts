import { type Static, Type } from 'typebox';
import { CalendarDate, Nullable } from '../../shared/schemas.js';
import { PersonRef } from '../movies/movie-details.schemas.js';
import { Movie } from '../movies/movies.schemas.js';

/** How many entries each ranked list has at most (the decades: all of them). */
export const TOP = 10;

export const StatisticsQuery = Type.Object({
  year: Type.Optional(
    Type.Integer({
      minimum: 1000,
      maximum: 9999,
      description: 'only the plays dated in this year (four digits); absent: every play',
    }),
  ),
});

/** What each figure counts: the OpenAPI description of the response, and docs/api-notes.md. */
export const SCOPE =
  'Movie-level figures (totals, ratings, the top lists, mostRewatched) count every play in scope: ' +
  'all time, the undated plays included; with `year`, the plays dated in that year. Date-based ' +
  'figures (per year, month and weekday, first and last, the streak) count dated plays only.';

const count = (description: string) => Type.Integer({ minimum: 0, description });
const movies = count('distinct movies');
const plays = count('plays');

const Ranked = <T extends object>(key: T, description: string) =>
  Type.Array(Type.Object({ ...key, movies, plays }), {
    maxItems: TOP,
    description: `${description}; most movies first, then most plays; at most ${TOP}`,
  });

const People = (who: string) =>
  Type.Object(
    {
      byMovies: Type.Array(Type.Object({ person: PersonRef, movies, plays }), {
        maxItems: TOP,
        description: 'most movies first, then most plays, then TMDB id',
      }),
      byPlays: Type.Array(Type.Object({ person: PersonRef, movies, plays }), {
        maxItems: TOP,
        description: 'most plays first, then most movies, then TMDB id',
      }),
    },
    { description: `${who}: the ${TOP} with the most movies watched, and the ${TOP} with the most plays` },
  );

export const StatisticsResponse = Type.Object(
  {
    year: Nullable(Type.Integer({ description: 'the year asked; null: all time' })),
    totals: Type.Object({
      plays: count('plays: all time, the undated ones included; with `year`, those dated in it'),
      movies: count('distinct movies of those plays'),
      minutesWatched: count('runtime × plays (a movie without a runtime counts 0)'),
      averageRating: Nullable(
        Type.Number({
          minimum: 1,
          maximum: 10,
          description:
            'mean of the 1-10 ratings of the rated movies among those, each as `ratings` counts it (two decimals); null: none',
        }),
      ),
      firstWatchedAt: Nullable({ ...CalendarDate, description: 'the first dated play; null: none' }),
      lastWatchedAt: Nullable({ ...CalendarDate, description: 'the last dated play; null: none' }),
    }),
    playsPerYear: Type.Array(
      Type.Object({ year: Type.Integer(), plays, movies, minutesWatched: count('runtime × plays') }),
      {
        description:
          'dated plays of each year from the first to the last (years without a play included, as 0); ' +
          'with `year`, that year alone',
      },
    ),
    playsPerMonth: Type.Array(
      Type.Object({ month: Type.String({ pattern: '^\\d{4}-\\d{2}$', examples: ['2024-03'] }), plays }),
      {
        minItems: 12,
        maxItems: 12,
        description:
          "dated plays of the 12 months of `year`, or else of the last 12 months, this month (in the user's time zone) last",
      },
    ),
    playsPerWeekday: Type.Array(
      Type.Object({
        weekday: Type.Integer({ minimum: 1, maximum: 7, description: 'ISO: 1 Monday, 7 Sunday' }),
        plays,
      }),
      { minItems: 7, maxItems: 7, description: 'dated plays by the weekday of their date, Monday first' },
    ),
    ratings: Type.Array(Type.Object({ rating: Type.Integer({ minimum: 1, maximum: 10 }), movies }), {
      minItems: 10,
      maxItems: 10,
      description:
        'how many of the movies played were rated 1, 2, ... 10: each movie once, with the own rating of ' +
        "its latest entry in scope that has one, else the movie's rating (docs/api-notes.md, Statistics)",
    }),
    topGenres: Ranked({ id: Type.Integer({ description: 'TMDB genre id' }), name: Type.String() }, 'genres'),
    topLanguages: Ranked(
      {
        code: Type.String({ description: "ISO 639-1 code of the movie's original language" }),
        name: Nullable(Type.String({ description: 'English name; null when no stored movie speaks it' })),
      },
      'original languages',
    ),
    topCountries: Ranked(
      { code: Type.String({ description: 'ISO 3166-1 code' }), name: Type.String() },
      'production countries',
    ),
    topDecades: Type.Array(
      Type.Object({
        decade: Type.Integer({ description: 'release decade: 1990 for 1990-1999' }),
        movies,
        plays,
      }),
      { description: 'every release decade; most movies first, then most plays, then oldest' },
    ),
    topDirectors: People('directors (crew job "Director")'),
    topActors: People('cast members (any billing)'),
    mostRewatched: Type.Array(Type.Object({ movie: Movie, plays: Type.Integer({ minimum: 2 }) }), {
      maxItems: TOP,
      description: 'movies played more than once: most plays first, then by service id',
    }),
    longestStreak: Type.Object(
      {
        days: count('consecutive calendar days with a dated play'),
        from: Nullable(CalendarDate),
        to: Nullable(CalendarDate),
      },
      {
        description:
          'the longest run of days in a row with a play (the latest of equal ones); 0 and nulls: none',
      },
    ),
    rewatches: count(
      "diary entries in scope that are rewatches: as the user set it, else an earlier dated entry of the movie (the diary's rule)",
    ),
    topTags: Type.Array(
      Type.Object({
        name: Type.String({ description: 'the tag as first written' }),
        entries: count('diary entries in scope with the tag'),
      }),
      { maxItems: TOP, description: `the ${TOP} tags on the most entries in scope; then by name` },
    ),
  },
  { description: SCOPE },
);

export type Statistics = Static<typeof StatisticsResponse>;
