import type { ListSummary, MovieState } from '../../library/library.service.js';
import type { MovieDetails } from '../../movies/movie-details.js';
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
 * the user's own lists, for "Add to a list".
 */
export function moviePage(
  user: User,
  details: MovieDetails,
  state: MovieState,
  view: { today: string; error: string | null; editing?: string | null; lists?: readonly ListSummary[] },
  imageBaseUrl: string,
) {
  const id = details.id;
  const canonical = movieHref(id, details.title);
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
    lists: (view.lists ?? []).map((list) => ({ id: list.id, name: list.name })),
    ratingChoices: ratingChoices(user.ratingScale),
    today: view.today,
    movieId: id,
    next: canonical,
    here: canonical,
  };
}
