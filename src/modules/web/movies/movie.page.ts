import type { ListPlace, ListSummary, MovieState } from '../../library/library.service.js';
import type { MovieDetails } from '../../movies/movie-details.js';
import type { MovieDetailsResponse } from '../../movies/movie-details.schemas.js';
import { toMovieDetailsResponse } from '../../movies/movies.presenter.js';
import type { User } from '../../users/users.service.js';
import { formatDay, formatRuntime, movieHref, personHref, yearOf } from '../shell/format.js';
import { ratingChoices } from '../shell/play-form.js';
import { pageImageUrl, ratingView } from '../shell/view-models.js';

// The movie page, from the catalogue's movie and what the user keeps of it. Pure: domain objects in,
// the template's data out.

/** How many of the cast the page shows, with their pictures. */
const CAST_SHOWN = 12;

/**
 * `/movies/{id}-{slug}` for `user`: the movie (poster, backdrop, facts, people, ratings, links out)
 * with its images under `imageBaseUrl` (the image cache's or TMDB's, as the API hands them out), and
 * the user's entries, rating and watchlist toggle with their forms (dates up to `today`, in the user's
 * time zone). `error`: why a change was refused, shown above them; `editing`: the entry whose edit
 * form was refused (its date, 'undated' for the plays without one), which comes back open; `lists`:
 * the user's own lists, for "Add to a list" (those that hold the movie already are not offered);
 * `kept`: the user's lists that hold it (with its rank on a ranked one) and the tags of its entries
 * (each a link to the diary filtered by it).
 */
export function moviePage(
  user: User,
  details: MovieDetails,
  state: MovieState,
  view: {
    today: string;
    error: string | null;
    editing?: string | null;
    lists?: readonly ListSummary[];
    kept?: { lists: readonly ListPlace[]; tags: readonly string[] };
    /** The user's tags, suggested by the log form's tags field. */
    tagSuggestions?: readonly string[];
  },
  imageBaseUrl: string,
) {
  const id = details.id;
  const canonical = movieHref(id, details.title);
  const onLists = new Set((view.kept?.lists ?? []).map((list) => list.id));
  const movie = toMovieDetailsResponse(details, imageBaseUrl);
  const person = (ref: { id: number; name: string; profilePath: string | null }) => ({
    href: personHref(ref.id, ref.name),
    name: ref.name,
    picture: pageImageUrl(ref.profilePath),
  });
  return {
    title: movie.title,
    error: view.error,
    editing: view.editing ?? null,
    tagSuggestions: view.tagSuggestions ?? [],
    movie: {
      id,
      title: movie.title,
      originalTitle: movie.originalTitle !== movie.title ? movie.originalTitle : null,
      year: yearOf(movie.releaseDate),
      releaseDate: movie.releaseDate ? formatDay(movie.releaseDate) : null,
      runtime: formatRuntime(movie.runtime),
      tagline: movie.tagline,
      overview: movie.overview,
      poster: pageImageUrl(movie.posterPath),
      backdrop: pageImageUrl(movie.backdropPath),
      genres: movie.genres,
      language: movie.originalLanguage?.englishName ?? movie.originalLanguage?.code ?? null,
      directors: movie.directors.map(person),
      writers: movie.writers.map(person),
      crew: crewRows(movie).map((row) => ({ label: row.label, people: row.people.map(person) })),
      cast: movie.cast
        .slice(0, CAST_SHOWN)
        .map((credit) => ({ ...person(credit.person), role: credit.character })),
      tmdbRating: movie.externalRatings.provider,
      imdbRating: movie.externalRatings.catalog,
      links: [
        ...(movie.ids.provider
          ? [{ label: 'TMDB', href: `https://www.themoviedb.org/movie/${movie.ids.provider}` }]
          : []),
        ...(movie.ids.catalog
          ? [{ label: 'IMDb', href: `https://www.imdb.com/title/${movie.ids.catalog}/` }]
          : []),
        ...(movie.ids.provider
          ? [{ label: 'Letterboxd', href: `https://letterboxd.com/tmdb/${movie.ids.provider}/` }]
          : []),
      ],
    },
    entries: state.entries.map((entry) => ({
      ...entry,
      day: formatDay(entry.watchedAt),
      dateValue: entry.watchedAt ?? '',
    })),
    rating: state.rating === null ? null : ratingView(state.rating, user.ratingScale),
    ratingValue: state.rating,
    onWatchlist: state.watchlistedAt !== null,
    liked: state.likedAt !== null,
    lists: (view.lists ?? [])
      .filter((list) => !onLists.has(list.id))
      .map((list) => ({ id: list.id, name: list.name })),
    onLists: (view.kept?.lists ?? []).map((list) => ({
      href: `/lists/${list.id}`,
      name: list.name,
      rank: list.ranked ? list.position : null,
    })),
    tags: (view.kept?.tags ?? []).map((name) => ({
      name,
      href: `/history?${new URLSearchParams({ tag: name })}`,
    })),
    ratingChoices: ratingChoices(user.ratingScale),
    today: view.today,
    movieId: id,
    next: canonical,
    here: canonical,
  };
}

/** The crew the movie page names beside the director, in this order, each under one label. */
const CREW_SHOWN: readonly { label: string; jobs: readonly string[] }[] = [
  { label: 'Produced by', jobs: ['Producer'] },
  { label: 'Music by', jobs: ['Original Music Composer', 'Composer', 'Music'] },
  { label: 'Cinematography', jobs: ['Director of Photography'] },
  { label: 'Edited by', jobs: ['Editor'] },
];
/** At most this many people a row: a big production names dozens of producers. */
const CREW_PEOPLE_SHOWN = 4;

type PersonRef = MovieDetailsResponse['writers'][number];

/** "Written by" (the writers, each once), then the rows of CREW_SHOWN the movie has, each person once. */
function crewRows(movie: MovieDetailsResponse): { label: string; people: PersonRef[] }[] {
  const rows = [{ label: 'Written by', people: movie.writers }];
  for (const { label, jobs } of CREW_SHOWN) {
    const people = new Map<number, PersonRef>();
    for (const job of jobs) {
      for (const credit of movie.crew.filter((entry) => entry.job === job)) {
        for (const who of credit.people) if (!people.has(who.id)) people.set(who.id, who);
      }
    }
    rows.push({ label, people: [...people.values()] });
  }
  return rows
    .filter((row) => row.people.length > 0)
    .map((row) => ({ label: row.label, people: row.people.slice(0, CREW_PEOPLE_SHOWN) }));
}
