import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { todayOf } from '../../library/library.rules.js';
import type { User } from '../../users/users.service.js';
import { asSentence, formatDay, movieHref, ratingLabel, yearOf } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import { PlayFields, type PlayInput, parsePlay, parseRating, ratingChoices } from '../shell/play-form.js';
import type { Pages } from '../shell/render.js';
import { safeNext, setFlash } from '../shell/session.js';
import type { MovieCard } from '../shell/view-models.js';
import type { WebDeps } from '../web.deps.js';

const Id = Type.String({ pattern: '^[1-9][0-9]{0,8}$' });
/**
 * What the log form starts with, carried from a link through the search to the form: an import's
 * unmatched row (Settings → Import and export) gives its play's date, or none, and its rating.
 */
const Prefill = {
  date: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })),
  unknownDate: Type.Optional(Type.Literal('on')),
  rating: Type.Optional(Type.String({ pattern: '^(10|[1-9])$' })),
};
type PrefillValues = { date?: string; unknownDate?: 'on'; rating?: string };
const prefillOf = (query: PrefillValues): Record<string, string> =>
  Object.fromEntries(
    (['date', 'unknownDate', 'rating'] as const).flatMap((key) => (query[key] ? [[key, query[key]]] : [])),
  );

const SearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })),
  ...Prefill,
});
const LogQuery = Type.Object({
  movieId: Type.Optional(Id),
  tmdbId: Type.Optional(Id),
  title: Type.Optional(Type.String({ maxLength: 300 })),
  year: Type.Optional(Type.String({ maxLength: 4 })),
  ...Prefill,
});
const LogForm = Type.Object({
  movieId: Type.Optional(Id),
  tmdbId: Type.Optional(Id),
  /** The movie as the form showed it, shown again if the form comes back. */
  title: Type.Optional(Type.String({ maxLength: 300 })),
  year: Type.Optional(Type.String({ maxLength: 4 })),
  next: Type.Optional(Type.String({ maxLength: 1000 })),
  ...PlayFields,
});
const WatchlistForm = Type.Object({
  movieId: Type.Optional(Id),
  tmdbId: Type.Optional(Id),
  next: Type.Optional(Type.String({ maxLength: 1000 })),
});

/** The owner of a library write from the pages: the signed-in user. */

/** The services these pages use. */
export type LogDeps = Pick<WebDeps, 'movies' | 'library' | 'clock' | 'imageBaseUrl'>;

/**
 * Search TMDB and log a play: `/search` (results with "Log a play" and "Add to watchlist"), `/log` (the
 * form and its POST), `POST /watchlist/add`. The movie is added from TMDB when first used.
 */
export function logRoutes(
  app: App,
  { render, settings }: Pages,
  { movies, library, clock, imageBaseUrl }: LogDeps,
): void {
  const signedIn = { preHandler: requireSignIn };

  app.get('/search', { ...signedIn, schema: { querystring: SearchQuery } }, async (request, reply) => {
    const { user } = currentUser(request);
    const q = (request.query.q ?? '').trim();
    const page = Number(request.query.page ?? '1');
    const prefill = prefillOf(request.query);
    let results: ReturnType<typeof resultCard>[] = [];
    let pages = 0;
    let error: string | null = null;
    if (q !== '') {
      try {
        const found = await movies.search(user.id, { search: q, page });
        results = found.results.map((result) => resultCard(result, imageBaseUrl, request.url, prefill));
        pages = found.maxPage;
      } catch (caught) {
        if (!(caught instanceof AppError)) throw caught;
        error = asSentence(caught.message);
      }
    }
    return render(request, reply, 'search', {
      title: q ? `Search: ${q}` : 'Search movies',
      q,
      searchQuery: q,
      page,
      results,
      pages,
      error,
      prefill,
      prefillText: prefillText(prefill, user.ratingScale),
      previous: page > 1 ? `/search?${new URLSearchParams({ q, page: String(page - 1), ...prefill })}` : null,
      next: page < pages ? `/search?${new URLSearchParams({ q, page: String(page + 1), ...prefill })}` : null,
    });
  });

  const logPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: {
      movie: { title: string; year: string };
      movieId?: string;
      tmdbId?: string;
      values?: PlayInput;
      next?: string;
      error?: string;
    },
    status = 200,
  ) => {
    const { user } = currentUser(request);
    return render(
      request,
      reply,
      'log',
      {
        title: `Log ${data.movie.title}`,
        ...data,
        today: todayOf(clock.now(), user.timezone),
        ratingChoices: ratingChoices(user.ratingScale),
      },
      status,
    );
  };

  app.get('/log', { ...signedIn, schema: { querystring: LogQuery } }, async (request, reply) => {
    const { movieId, tmdbId, title, year } = request.query;
    if (!movieId && !tmdbId) return reply.redirect('/search', 303);
    const prefill = prefillOf(request.query);
    // A stored movie is named as stored; one from the search results as the results named it.
    const stored = movieId ? await movies.movieDetails(Number(movieId)) : null;
    return logPage(request, reply, {
      movie: stored
        ? { title: stored.title, year: yearOf(stored.releaseDate) }
        : { title: title?.trim() || 'a movie', year: year ?? '' },
      movieId,
      tmdbId,
      ...(Object.keys(prefill).length > 0 && { values: prefill }),
    });
  });

  app.post('/log', { ...signedIn, schema: { body: LogForm } }, async (request, reply) => {
    const { user } = currentUser(request);
    const form = request.body;
    try {
      const play = parsePlay(form, todayOf(clock.now(), user.timezone));
      const rating = parseRating(form.rating);
      const movieId = await movieIdOf(form);
      await library.write(user.id, async (lib) => {
        await lib.addPlays([{ movieId, watchedAt: play.date, plays: play.plays, comment: play.comment }]);
        if (rating !== null) await lib.setRatings([{ movieId, rating }]);
      });
      // The write found the movie (or answered 404): it is there, and movies are never deleted.
      const title = (await movies.movieDetails(movieId))?.title ?? 'the movie';
      setFlash(
        reply,
        `Logged ${title}${play.date ? ` on ${formatDay(play.date)}` : ' (unknown date)'}.`,
        settings,
      );
      return reply.redirect(form.next ? safeNext(form.next) : movieHref(movieId, title), 303);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return logPage(
        request,
        reply,
        {
          movie: { title: form.title?.trim() || 'a movie', year: form.year ?? '' },
          movieId: form.movieId,
          tmdbId: form.tmdbId,
          values: form,
          next: form.next,
          error: asSentence(error.message),
        },
        error.statusCode,
      );
    }
  });

  app.post('/watchlist/add', { ...signedIn, schema: { body: WatchlistForm } }, async (request, reply) => {
    const { user } = currentUser(request);
    const form = request.body;
    const movieId = await movieIdOf(form);
    await library.write(user.id, (lib) => lib.addToWatchlist([movieId]));
    setFlash(reply, 'Added to your watchlist.', settings);
    return reply.redirect(safeNext(form.next ?? '/watchlist'), 303);
  });

  /** The form's movie: one stored (movieId) or one from TMDB, added now if new (tmdbId). */
  async function movieIdOf(form: {
    movieId?: string | undefined;
    tmdbId?: string | undefined;
  }): Promise<number> {
    if (form.movieId) return Number(form.movieId);
    if (form.tmdbId) {
      try {
        return await movies.findOrAdd(Number(form.tmdbId));
      } catch (error) {
        // TMDB not set up or not answering: the form says so (a page's 5xx would be a bug of ours).
        if (error instanceof AppError && error.statusCode >= 500) {
          throw new ValidationError(`the movie cannot be added now: ${error.message}`);
        }
        throw error;
      }
    }
    throw new ValidationError('no movie was chosen');
  }
}

/** A TMDB search result as a card: its page when stored, else the log form; watched/watchlist marks. */
function resultCard(
  result: Awaited<ReturnType<WebDeps['movies']['search']>>['results'][number],
  tmdbImageBase: string,
  here: string,
  prefill: Record<string, string>,
) {
  const year = yearOf(result.releaseDate);
  const logHref = `/log?${new URLSearchParams({ tmdbId: String(result.ids.provider), title: result.title, year, ...prefill })}`;
  const stored = result.ids.service;
  const posterUrl = result.providerPosterPath ? `${tmdbImageBase}/w342${result.providerPosterPath}` : null;
  const card: MovieCard = {
    id: stored ?? result.ids.provider,
    href: stored ? movieHref(stored, result.title) : logHref,
    title: result.title,
    year,
    posterUrl,
    meta: [result.isWatched ? 'Watched' : '', result.isOnWatchlist ? 'On your watchlist' : '']
      .filter(Boolean)
      .join(' · '),
    rating: null,
  };
  return {
    card,
    tmdbId: result.ids.provider,
    movieId: stored,
    title: result.title,
    logHref: stored
      ? `/log?${new URLSearchParams({ movieId: String(stored), title: result.title, year, ...prefill })}`
      : logHref,
    onWatchlist: result.isOnWatchlist,
    next: here,
  };
}

/** What "Log a play" will fill in, in words: "1 Jan 2024, rated 8/10". */
function prefillText(prefill: Record<string, string>, scale: User['ratingScale']): string | null {
  const parts = [
    prefill.date ? formatDay(prefill.date) : prefill.unknownDate ? 'an unknown date' : '',
    prefill.rating ? `rated ${ratingLabel(Number(prefill.rating), scale)}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : null;
}
