import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { hasEarlierEntry, todayOf } from '../../library/library.rules.js';
import { toMovieDetailsResponse } from '../../movies/movies.presenter.js';
import { asSentence, formatDay, movieHref, yearOf } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import {
  PlayFields,
  type PlayInput,
  Prefill,
  parsePlay,
  parseRating,
  parseRewatch,
  parseTags,
  prefillOf,
  ratingChoices,
} from '../shell/play-form.js';
import type { Pages } from '../shell/render.js';
import { safeNext, setFlash } from '../shell/session.js';
import { pageImageUrl } from '../shell/view-models.js';
import type { WebDeps } from '../web.deps.js';

const Id = Type.String({ pattern: '^[1-9][0-9]{0,8}$' });
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
  rewatch: Type.Optional(Type.String({ maxLength: 10 })),
  /** How the rewatch box was first shown ('on': ticked, an earlier entry exists). */
  rewatchShown: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  /** Tags separated by commas. */
  tags: Type.Optional(Type.String({ maxLength: 20_000 })),
});
const WatchlistForm = Type.Object({
  movieId: Type.Optional(Id),
  tmdbId: Type.Optional(Id),
  next: Type.Optional(Type.String({ maxLength: 1000 })),
});

/** What the log form sends back when it is shown again. */
type LogValues = PlayInput & {
  rewatch?: string | undefined;
  rewatchShown?: string | undefined;
  tags?: string | undefined;
};

/** The services these pages use. */
export type LogDeps = Pick<WebDeps, 'movies' | 'library' | 'clock' | 'publicImageBaseUrl'>;

/**
 * Log a play: `/log` (the form and its POST) and `POST /watchlist/add`, the two buttons of a search
 * result (movies/search.routes.ts) or a link. The movie is added from TMDB when first used.
 */
export function logRoutes(
  app: App,
  { render, settings }: Pages,
  { movies, library, clock, publicImageBaseUrl }: LogDeps,
): void {
  const signedIn = { preHandler: requireSignIn };

  const logPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    data: {
      movie: { title: string; year: string };
      movieId?: string | undefined;
      tmdbId?: string | undefined;
      values?: LogValues;
      next?: string | undefined;
      error?: string;
    },
    status = 200,
  ) => {
    const { user } = currentUser(request);
    const today = todayOf(clock.now(), user.timezone);
    // The movie as stored, when it is (a search result may be): its poster, and whether a play
    // today would be a rewatch (an earlier dated entry).
    const storedId = data.movieId
      ? Number(data.movieId)
      : data.tmdbId
        ? await movies.findStored({ tmdbId: Number(data.tmdbId) })
        : undefined;
    const [details, state, tags] = await Promise.all([
      storedId === undefined ? null : movies.movieDetails(storedId),
      storedId === undefined ? null : library.movieState(user, storedId),
      library.tags(user),
    ]);
    const poster = details
      ? pageImageUrl(toMovieDetailsResponse(details, publicImageBaseUrl).posterPath)
      : null;
    return render(
      request,
      reply,
      'log',
      {
        title: `Log ${data.movie.title}`,
        ...data,
        today,
        poster,
        initial: [...data.movie.title][0] ?? '?',
        ratingChoices: ratingChoices(user.ratingScale),
        rewatchLikely: state ? hasEarlierEntry(state.entries, today) : false,
        tagSuggestions: tags.map((tag) => tag.name),
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
      const tags = parseTags(form.tags);
      const rewatch = parseRewatch(form);
      const movieId = await movieIdOf(form);
      // The API's diary POST: the entry's rating (and the movie's), its rewatch flag and its tags.
      await library.write(user.id, (lib) =>
        lib.logEntries([
          {
            movieId,
            watchedAt: play.date,
            plays: play.plays,
            comment: play.comment,
            rating,
            ...(rewatch !== undefined && { rewatch }),
            tags,
          },
        ]),
      );
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
