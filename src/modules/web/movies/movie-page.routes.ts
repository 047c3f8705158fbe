import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isCalendarDate } from '../../../shared/dates.js';
import { AppError, notFound, ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { todayOf } from '../../library/library.rules.js';
import type { MovieDetails } from '../../movies/movie-details.js';
import { asSentence, formatDay, movieHref } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import {
  PlayFields,
  parseComment,
  parsePlayDate,
  parsePlays,
  parsePosition,
  parseRating,
} from '../shell/play-form.js';
import type { Pages } from '../shell/render.js';
import { safeNext, setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { moviePage } from './movie.page.js';

const MovieRef = Type.Object({ ref: Type.String({ pattern: '^[1-9][0-9]{0,8}(-[^/]{0,200})?$' }) });
const MovieId = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,8}$' }) });
const EditForm = Type.Object({
  from: Type.String({ maxLength: 40 }),
  position: Type.Optional(Type.String({ maxLength: 10 })),
  ...PlayFields,
});
const Next = Type.Optional(Type.String({ maxLength: 1000 }));
const DeleteForm = Type.Object({ date: Type.String({ maxLength: 40 }), next: Next });
const RatingForm = Type.Object({ rating: Type.String({ maxLength: 10 }) });
const WatchlistToggle = Type.Object({
  action: Type.Union([Type.Literal('add'), Type.Literal('remove')]),
  next: Next,
});

/** The services these pages use. */
export type MoviePageDeps = Pick<WebDeps, 'movies' | 'library' | 'clock' | 'publicImageBaseUrl'>;

/**
 * The movie page `/movies/{id}-{slug}`: the movie (poster, backdrop, facts, people, ratings, links out)
 * and what the signed-in user keeps of it, with every change to it: log a play, edit or delete an
 * entry, set or clear the rating, the watchlist toggle.
 */
export function moviePageRoutes(
  app: App,
  { render, settings }: Pages,
  { movies, library, clock, publicImageBaseUrl }: MoviePageDeps,
): void {
  const signedIn = { preHandler: requireSignIn };

  app.get('/movies/:ref', { ...signedIn, schema: { params: MovieRef } }, async (request, reply) => {
    const id = Number.parseInt(request.params.ref, 10);
    const details = await movies.movieDetails(id);
    if (!details) throw notFound('MovieNotFound', `no movie with id ${id}`);
    const canonical = movieHref(id, details.title);
    // The id is enough; a missing or outdated slug leads to the movie's own address.
    if (`/movies/${request.params.ref}` !== decodeURIComponent(canonical)) {
      return reply.redirect(canonical, 301);
    }
    return showMovie(request, reply, details);
  });

  /** The page of a movie; after a refused change, with the reason and the refusal's status. */
  async function showMovie(
    request: FastifyRequest,
    reply: FastifyReply,
    details: MovieDetails,
    refused?: { error: string; status: number; editing?: string | null },
  ) {
    const { user } = currentUser(request);
    const [state, lists, kept, tags] = await Promise.all([
      library.movieState(user, details.id),
      library.lists(user, user.id),
      library.movieLists(user, details.id),
      library.tags(user),
    ]);
    const view = {
      today: todayOf(clock.now(), user.timezone),
      lists,
      kept,
      tagSuggestions: tags.map((tag) => tag.name),
      error: refused?.error ?? null,
      editing: refused?.editing ?? null,
    };
    return render(
      request,
      reply,
      'movie',
      moviePage(user, details, state, view, publicImageBaseUrl),
      refused?.status ?? 200,
    );
  }

  app.post(
    '/movies/:id/entries/edit',
    { ...signedIn, schema: { params: MovieId, body: EditForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const movieId = Number(request.params.id);
      const form = request.body;
      // A refused edit comes back with this entry's form open.
      const editing = form.from.trim() || 'undated';
      return applyAndReturn(request, reply, movieId, editing, async () => {
        // '' is the entry of plays without a date; so is the "Unknown date" box for the new date.
        const from = form.from.trim() === '' ? null : form.from.trim();
        if (from !== null && !isCalendarDate(from))
          throw new ValidationError('the entry to change is not a date');
        const to = parsePlayDate(form, todayOf(clock.now(), user.timezone));
        const position = parsePosition(form.position);
        await library.write(user.id, (lib) =>
          lib.editEntry(movieId, from, {
            to,
            plays: parsePlays(form.plays),
            comment: parseComment(form.comment),
            position,
          }),
        );
        return to === null ? 'Entry without a date saved.' : `Entry of ${formatDay(to)} saved.`;
      });
    },
  );

  app.post(
    '/movies/:id/entries/delete',
    { ...signedIn, schema: { params: MovieId, body: DeleteForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const movieId = Number(request.params.id);
      const date = request.body.date.trim();
      return applyAndReturn(request, reply, movieId, null, async () => {
        if (date !== '' && !isCalendarDate(date))
          throw new ValidationError('the entry to delete is not a date');
        await library.write(user.id, (lib) =>
          lib.deleteDates([{ movieId, dates: [date === '' ? null : date] }]),
        );
        return date === '' ? 'The plays without a date deleted.' : `Entry of ${formatDay(date)} deleted.`;
      });
    },
  );

  app.post(
    '/movies/:id/rating',
    { ...signedIn, schema: { params: MovieId, body: RatingForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const movieId = Number(request.params.id);
      return applyAndReturn(request, reply, movieId, null, async () => {
        const rating = parseRating(request.body.rating);
        await library.write(user.id, (lib) =>
          rating === null ? lib.clearRatings([movieId]) : lib.setRatings([{ movieId, rating }]),
        );
        return rating === null ? 'Rating cleared.' : 'Rating saved.';
      });
    },
  );

  app.post(
    '/movies/:id/watchlist',
    { ...signedIn, schema: { params: MovieId, body: WatchlistToggle } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const movieId = Number(request.params.id);
      return applyAndReturn(request, reply, movieId, null, async () => {
        const add = request.body.action === 'add';
        await library.write(user.id, (lib) =>
          add ? lib.addToWatchlist([movieId]) : lib.removeFromWatchlist([movieId]),
        );
        return add ? 'Added to your watchlist.' : 'Removed from your watchlist.';
      });
    },
  );

  /**
   * Runs a change of the signed-in user's own library and goes back to the movie's page with its notice.
   * A refused change (bad input, an entry that is not there) changes nothing: the page comes back with
   * the reason, and the refusal's status (400, 404).
   */
  async function applyAndReturn(
    request: FastifyRequest,
    reply: FastifyReply,
    movieId: number,
    editing: string | null,
    apply: () => Promise<string>,
  ) {
    const details = await movies.movieDetails(movieId);
    if (!details) throw notFound('MovieNotFound', `no movie with id ${movieId}`);
    try {
      setFlash(reply, await apply(), settings);
    } catch (error) {
      if (!(error instanceof AppError) && !(error instanceof RangeError)) throw error;
      const status = error instanceof AppError ? error.statusCode : 400;
      return showMovie(request, reply, details, { error: asSentence(error.message), status, editing });
    }
    const next = (request.body as { next?: string } | undefined)?.next;
    return reply.redirect(next ? safeNext(next) : movieHref(movieId, details.title), 303);
  }
}
