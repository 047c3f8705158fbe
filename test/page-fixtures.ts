import type { MovieDetails, PersonDetails } from '../src/modules/movies/movie-details.js';
import type { Movie } from '../src/modules/movies/movies.schemas.js';
import type { Statistics } from '../src/modules/statistics/statistics.service.js';
import type { User } from '../src/modules/users/users.service.js';
import type { Page } from '../src/shared/pagination.js';

// Domain objects as the services hand them to the web's page builders (src/modules/web/*/*.page.ts),
// for their tests: no database, no HTTP. Each has plain defaults; a test names what it looks at.

export function aUser(overrides: Partial<User> = {}): User {
  return {
    id: 1,
    name: 'alice',
    email: 'alice@example.test',
    isAdmin: false,
    privacy: 'users',
    timezone: 'UTC',
    watchlistAutoRemove: true,
    ratingScale: 'points',
    publicProfile: false,
    dataVersionAsRead: 1,
    createdAt: '2024-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A movie as a list gives it; `id` is its serviceId. */
export function aMovie(overrides: Partial<Omit<Movie, 'ids'>> & { id?: number } = {}): Movie {
  const { id = 7, ...rest } = overrides;
  return {
    title: 'Heat',
    originalTitle: 'Heat',
    releaseDate: '1995-12-15',
    tagline: null,
    overview: null,
    originalLanguage: 'en',
    runtime: 170,
    posterPath: null,
    ids: { service: id, provider: 949, tracker: null, catalog: 'tt0113277', journal: null },
    userRating: null,
    externalRatings: { provider: { average: null, count: null }, catalog: { average: null, count: null } },
    updatedAt: null,
    createdAt: '2024-01-01',
    ...rest,
  };
}

export function aPage<T>(items: T[], maxPage = items.length === 0 ? 0 : 1): Page<T> {
  return { items, currentPage: 1, maxPage };
}

/** A movie's details as the catalogue gives them (TMDB paths, not URLs). */
export function movieDetails(overrides: Partial<MovieDetails> = {}): MovieDetails {
  return {
    id: 7,
    ids: { provider: 949, tracker: null, catalog: 'tt0113277', journal: null },
    title: 'Heat',
    originalTitle: 'Heat',
    releaseDate: '1995-12-15',
    tagline: 'A Los Angeles crime saga',
    overview: 'Obsessive master thief...',
    originalLanguage: { code: 'en', englishName: 'English', name: 'English' },
    runtime: 170,
    posterPath: '/heat.jpg',
    backdropPath: null,
    externalRatings: { provider: { average: 7.9, count: 7000 }, catalog: { average: null, count: null } },
    genres: [{ id: 1, providerId: 80, name: 'Crime' }],
    productionCountries: [],
    spokenLanguages: [],
    productionCompanies: [],
    collection: null,
    directors: [{ id: 3, providerId: 638, name: 'Michael Mann', profilePath: '/mann.jpg' }],
    writers: [],
    cast: [],
    crew: [],
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: null,
    detailsFetchedAt: null,
    ...overrides,
  };
}

export function personDetails(overrides: Partial<PersonDetails> = {}): PersonDetails {
  return {
    id: 3,
    providerId: 638,
    name: 'Michael Mann',
    profilePath: null,
    knownForDepartment: 'Directing',
    updatedAt: '2024-01-01T00:00:00.000Z',
    cast: [],
    crew: [],
    ...overrides,
  };
}

/** The statistics of a user with no play at all; `months` names the 12 months of the chart. */
export function noStatistics(overrides: Partial<Statistics> = {}, months = monthsOf('2024')): Statistics {
  return {
    year: null,
    totals: {
      plays: 0,
      movies: 0,
      minutesWatched: 0,
      averageRating: null,
      firstWatchedAt: null,
      lastWatchedAt: null,
    },
    playsPerYear: [],
    playsPerMonth: months.map((month) => ({ month, plays: 0 })),
    playsPerWeekday: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, plays: 0 })),
    ratings: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((rating) => ({ rating, movies: 0 })),
    topGenres: [],
    topLanguages: [],
    topCountries: [],
    topDecades: [],
    topDirectors: { byMovies: [], byPlays: [] },
    topActors: { byMovies: [], byPlays: [] },
    mostRewatched: [],
    longestStreak: { days: 0, from: null, to: null },
    rewatches: 0,
    topTags: [],
    ...overrides,
  };
}

/** `2024-01` to `2024-12`. */
export const monthsOf = (year: string) =>
  Array.from({ length: 12 }, (_, i) => `${year}-${String(i + 1).padStart(2, '0')}`);
