import type { Page } from '../../../shared/pagination.js';
import type { ListFacets, PlayedEntry } from '../../library/library.service.js';
import type { PersonDetails } from '../../movies/movie-details.js';
import type { RatingScale } from '../../users/users.service.js';
import { formatDay, movieHref, yearOf } from '../shell/format.js';
import { type MovieCard, movieCard, pageImageUrl, paginationView } from '../shell/view-models.js';

// The movies grid and the person page, from the library's played list and the catalogue's person.
// Pure: domain objects in, the templates' data out.

/** The grid's sorts, each with the order it starts in. */
export const MOVIES_SORTS = [
  { value: 'title', label: 'Title', order: 'asc' },
  { value: 'addedAt', label: 'Last watched', order: 'desc' },
  { value: 'plays', label: 'Plays', order: 'desc' },
  { value: 'rating', label: 'Your rating', order: 'desc' },
  { value: 'releaseDate', label: 'Release date', order: 'desc' },
  { value: 'runtime', label: 'Runtime', order: 'desc' },
] as const;

/** What the grid was asked for: the address's values (kept in its links), the page, the person named. */
export interface MoviesValues {
  kept: {
    q?: string | undefined;
    genre?: string | undefined;
    decade?: string | undefined;
    language?: string | undefined;
    rating?: string | undefined;
    person?: string | undefined;
    sort: string;
    order: string;
  };
  /** Any filter narrows the list. */
  filtered: boolean;
  page: number;
  /** The person a filter asks for, as named now; null without that filter (or for nobody). */
  person: { id: number; name: string } | null;
}

/**
 * `/movies`: the movies the user watched as cards (last watched, plays, a heart: `liked`, those of the
 * page the user likes), filters, sorts and pages.
 */
export function moviesPage(
  scale: RatingScale,
  values: MoviesValues,
  list: Page<PlayedEntry>,
  facets: ListFacets,
  liked: ReadonlySet<number> = new Set(),
) {
  const { kept, person } = values;
  return {
    title: 'Movies',
    values: kept,
    facets,
    sorts: MOVIES_SORTS,
    person: person && {
      id: person.id,
      name: person.name,
      clear: `/movies?${new URLSearchParams(Object.entries({ ...kept, person: undefined }).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''))}`,
    },
    filtered: values.filtered,
    cards: list.items.map((entry) => {
      const plays = entry.watchedDates.reduce((sum, date) => sum + date.plays, 0);
      const last = entry.watchedDates
        .map((date) => date.date)
        .filter((date): date is string => date !== null)
        .sort()
        .at(-1);
      return movieCard(entry.movie, {
        scale,
        liked,
        meta: [last ? formatDay(last) : '', plays > 1 ? `${plays} plays` : ''].filter(Boolean).join(' · '),
      });
    }),
    pagination: paginationView('/movies', { ...kept }, values.page, list.maxPage),
  };
}

/**
 * `/people/{id}-{slug}`: the person, the movies of theirs the user watched (`watched`, with their
 * roles) and the others cinelog knows. Their pictures and the unwatched movies' posters come from the
 * catalogue's paths under `imageBaseUrl`. Each card has a heart (`liked`: those of them the user likes).
 */
export function personPage(
  scale: RatingScale,
  person: PersonDetails,
  watched: Page<PlayedEntry>,
  imageBaseUrl: string,
  liked: ReadonlySet<number> = new Set(),
) {
  const watchedIds = new Set(watched.items.map((entry) => entry.movie.ids.service));
  const roles = new Map<number, { movie: PersonDetails['cast'][number]['movie']; roles: string[] }>();
  for (const credit of person.cast) {
    const entry = roles.get(credit.movie.id) ?? { movie: credit.movie, roles: [] };
    entry.roles.push(credit.character ? `as ${credit.character}` : 'cast');
    roles.set(credit.movie.id, entry);
  }
  for (const credit of person.crew) {
    const entry = roles.get(credit.movie.id) ?? { movie: credit.movie, roles: [] };
    entry.roles.push(credit.job);
    roles.set(credit.movie.id, entry);
  }
  const poster = (path: string | null) => (path ? pageImageUrl(`${imageBaseUrl}/w342${path}`) : null);
  return {
    title: person.name,
    person: {
      name: person.name,
      department: person.knownForDepartment,
      picture: person.profilePath ? pageImageUrl(`${imageBaseUrl}/w185${person.profilePath}`) : null,
      moviesHref: `/movies?person=${person.id}`,
    },
    watched: watched.items.map((entry) =>
      movieCard(entry.movie, {
        scale,
        liked,
        meta: (roles.get(entry.movie.ids.service)?.roles ?? []).join(', '),
      }),
    ),
    unwatched: [...roles.values()]
      .filter((entry) => !watchedIds.has(entry.movie.id))
      .map(
        (entry): MovieCard => ({
          id: entry.movie.id,
          href: movieHref(entry.movie.id, entry.movie.title),
          title: entry.movie.title,
          year: yearOf(entry.movie.releaseDate),
          posterUrl: poster(entry.movie.posterPath),
          meta: entry.roles.join(', '),
          rating: null,
          liked: liked.has(entry.movie.id),
        }),
      ),
  };
}
