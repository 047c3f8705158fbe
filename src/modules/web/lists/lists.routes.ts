import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, notFound, ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import type { ListVisibility } from '../../library/library.rules.js';
import type { ListWithMovies } from '../../library/library.service.js';
import { hasPublicProfile } from '../../users/users.service.js';
import { asSentence, movieHref } from '../shell/format.js';
import { isTicked } from '../shell/forms.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { safeNext, setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { type ListFormValues, likesPage, listPage, listsPage, publicListPage } from './lists.page.js';

const PER_PAGE = 24;
const Id = Type.String({ pattern: '^[1-9][0-9]{0,8}$' });
const PageQuery = Type.Object({ page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })) });
const ListParams = Type.Object({ id: Id });
const ListMovieParams = Type.Object({ id: Id, movieId: Id });
const MovieParams = Type.Object({ id: Id });
const Next = Type.Optional(Type.String({ maxLength: 1000 }));
// Generous bounds: the writer holds the name and description to library.rules.ts, and a refused form
// comes back with its reason and what was typed.
const ListForm = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  description: Type.Optional(Type.String({ maxLength: 20_000 })),
  ranked: Type.Optional(Type.String({ maxLength: 10 })),
  visibility: Type.Union([Type.Literal('private'), Type.Literal('users'), Type.Literal('public')]),
});
const LikeForm = Type.Object({
  action: Type.Union([Type.Literal('like'), Type.Literal('unlike')]),
  next: Next,
});
const AddForm = Type.Object({ listId: Id, next: Next });
const AddAnyForm = Type.Object({
  listId: Id,
  movieId: Type.Optional(Id),
  tmdbId: Type.Optional(Id),
  next: Next,
});
const MoveForm = Type.Object({
  /** Where the movie was when the page was read: a list changed since then is not moved blindly. */
  from: Type.String({ pattern: '^[1-9][0-9]{0,3}$' }),
  direction: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  next: Next,
});
const RemoveForm = Type.Object({ next: Next });
const NoteForm = Type.Object({
  from: Type.String({ pattern: '^[1-9][0-9]{0,3}$' }),
  note: Type.String({ maxLength: 20_000 }),
  next: Next,
});

/** The services these pages use. */
export type ListsDeps = Pick<WebDeps, 'library' | 'movies' | 'users'>;

const formValues = (body: {
  name: string;
  description?: string | undefined;
  ranked?: string | undefined;
  visibility: ListVisibility;
}): ListFormValues => ({
  name: body.name,
  description: body.description ?? '',
  ranked: isTicked(body.ranked),
  visibility: body.visibility,
});

/** A refusal a form answers with its page and reason (bad input), rather than the error page. */
const refusal = (error: unknown) =>
  error instanceof AppError && error.statusCode === 400 ? asSentence(error.message) : null;

/**
 * Issue 30's pages: `/likes`, the like button of the movie page, `/lists` and a list's page with its
 * forms, "Add to a list" of the movie page, and a public list `/u/{name}/lists/{id}`.
 */
export function listsRoutes(
  app: App,
  { render, settings }: Pages,
  { library, movies, users }: ListsDeps,
): void {
  const signedIn = { preHandler: requireSignIn };

  app.get('/likes', { ...signedIn, schema: { querystring: PageQuery } }, async (request, reply) => {
    const { user } = currentUser(request);
    const page = Number(request.query.page ?? '1');
    // Kept whole while the likes' bytes stand (Renderer.cached): made afresh, the page of 24 cards
    // cost 2.4 ms of CPU a view (bench pages, /likes: 0.02 x bare).
    const likes = await library.page('likes', user, { page, limit: PER_PAGE }, JSON.stringify, 'objects');
    return render.cached(request, reply, {
      template: 'likes',
      sources: [likes],
      data: () => likesPage(user.ratingScale, page, JSON.parse(likes.toString('utf8'))),
    });
  });

  app.post(
    '/movies/:id/like',
    { ...signedIn, schema: { params: MovieParams, body: LikeForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const movieId = Number(request.params.id);
      const details = await movies.movieDetails(movieId);
      if (!details) throw notFound('MovieNotFound', `no movie with id ${movieId}`);
      const like = request.body.action === 'like';
      // A second "unlike" (a form sent twice, an old page) says what is so, not that it changed.
      const unliked = await library.write(user.id, (lib) =>
        like ? lib.likeMovies([movieId]).then(() => 0) : lib.unlikeMovies([movieId]),
      );
      const notice = like
        ? `You like ${details.title}.`
        : unliked > 0
          ? `You no longer like ${details.title}.`
          : `You did not like ${details.title}: nothing changed.`;
      setFlash(reply, notice, settings);
      const next = request.body.next;
      return reply.redirect(next ? safeNext(next) : movieHref(movieId, details.title), 303);
    },
  );

  app.post(
    '/movies/:id/lists',
    { ...signedIn, schema: { params: MovieParams, body: AddForm } },
    async (request, reply) => {
      const movieId = Number(request.params.id);
      const details = await movies.movieDetails(movieId);
      if (!details) throw notFound('MovieNotFound', `no movie with id ${movieId}`);
      return addToList(request, reply, details, Number(request.body.listId), request.body.next);
    },
  );

  // "Add to a list" of a search result: a stored movie (movieId), or TMDB's (tmdbId), stored first.
  app.post('/lists/add', { ...signedIn, schema: { body: AddAnyForm } }, async (request, reply) => {
    const { user } = currentUser(request);
    const { movieId, tmdbId, listId, next } = request.body;
    if (!movieId && !tmdbId) throw new ValidationError('no movie was chosen');
    // Another user's list, or none: 404 before TMDB is asked or anything stored.
    if (!(await library.lists(user, user.id)).some((list) => list.id === Number(listId))) {
      throw notFound('ListNotFound', `no list ${listId}`);
    }
    const id = movieId ? Number(movieId) : await storedFromTmdb(Number(tmdbId));
    const details = await movies.movieDetails(id);
    if (!details) throw notFound('MovieNotFound', `no movie with id ${id}`);
    return addToList(request, reply, details, Number(listId), next);
  });

  /** The stored movie of a TMDB id, added now if new; TMDB out of reach is the form's 400, not a 5xx. */
  async function storedFromTmdb(tmdbId: number): Promise<number> {
    try {
      return await movies.findOrAdd(tmdbId);
    } catch (error) {
      if (error instanceof AppError && error.statusCode >= 500) {
        throw new ValidationError(`the movie cannot be added now: ${error.message}`);
      }
      throw error;
    }
  }

  /** Puts the movie on the user's list (at its end; on it already, it stays put) and goes back. */
  async function addToList(
    request: FastifyRequest,
    reply: FastifyReply,
    details: { id: number; title: string },
    listId: number,
    next: string | undefined,
  ) {
    const { user } = currentUser(request);
    // Not the user's list: the writer's 404, and nothing written.
    const list = await library.write(user.id, async (lib) => {
      await lib.putListMovies(listId, [{ movieId: details.id }]);
      return lib.changeList(listId, {});
    });
    setFlash(reply, `Added ${details.title} to ${list.name}.`, settings);
    return reply.redirect(next ? safeNext(next) : movieHref(details.id, details.title), 303);
  }

  app.get('/lists', signedIn, async (request, reply) => {
    const { user } = currentUser(request);
    // Kept whole while the user's lists stand (the library hands back the same array until a change).
    const lists = await library.lists(user, user.id);
    return render.cached(request, reply, {
      template: 'lists',
      sources: [lists],
      data: () => listsPage(lists),
    });
  });

  app.post('/lists', { ...signedIn, schema: { body: ListForm } }, async (request, reply) => {
    const { user } = currentUser(request);
    const values = formValues(request.body);
    try {
      const list = await library.write(user.id, (lib) =>
        lib.createList({
          name: values.name.trim(),
          description: values.description.trim() || null,
          ranked: values.ranked,
          visibility: values.visibility,
        }),
      );
      setFlash(reply, `List ${list.name} created. Add movies to it from their pages.`, settings);
      return reply.redirect(`/lists/${list.id}`, 303);
    } catch (error) {
      const reason = refusal(error);
      if (reason === null) throw error;
      const lists = await library.lists(user, user.id);
      return render(request, reply, 'lists', listsPage(lists, values, reason), 400);
    }
  });

  /** One of the signed-in user's own lists, or the 404 page (another user's list is not theirs). */
  async function ownList(request: FastifyRequest, id: number, page: number) {
    const { user } = currentUser(request);
    const list = await library.listWithMovies(user, id, user.id, { page, limit: PER_PAGE });
    if (!list) throw notFound('ListNotFound', `no list ${id}`);
    return list;
  }

  const showList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    list: ListWithMovies,
    page: number,
    refused: { form: ListFormValues; error: string } | null = null,
  ) => {
    const { user } = currentUser(request);
    const make = async () => {
      const liked = await library.likedOn(user.id, list.movies.items);
      return listPage(user.ratingScale, list, page, refused, liked);
    };
    if (refused) return render(request, reply, 'list', await make(), 400);
    // Kept whole while the list's page stands (the library hands back the same object until a change;
    // a like moves the data version, so the hearts are read again): made afresh, a page of a list of
    // 1,000 movies cost 4.5 ms of CPU a view (bench pages: 0.01 x bare).
    return render.cached(request, reply, { template: 'list', sources: [list], data: make });
  };

  app.get(
    '/lists/:id',
    { ...signedIn, schema: { params: ListParams, querystring: PageQuery } },
    async (request, reply) => {
      const page = Number(request.query.page ?? '1');
      return showList(request, reply, await ownList(request, Number(request.params.id), page), page);
    },
  );

  app.post(
    '/lists/:id/edit',
    { ...signedIn, schema: { params: ListParams, body: ListForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const id = Number(request.params.id);
      const values = formValues(request.body);
      try {
        const list = await library.write(user.id, (lib) =>
          lib.changeList(id, {
            name: values.name.trim(),
            description: values.description.trim() || null,
            ranked: values.ranked,
            visibility: values.visibility,
          }),
        );
        setFlash(reply, `List ${list.name} saved.`, settings);
        return reply.redirect(`/lists/${id}`, 303);
      } catch (error) {
        const reason = refusal(error);
        if (reason === null) throw error;
        return showList(request, reply, await ownList(request, id, 1), 1, { form: values, error: reason });
      }
    },
  );

  app.post('/lists/:id/delete', { ...signedIn, schema: { params: ListParams } }, async (request, reply) => {
    const { user } = currentUser(request);
    const id = Number(request.params.id);
    const list = await ownList(request, id, 1);
    await library.write(user.id, (lib) => lib.deleteList(id));
    setFlash(reply, `List ${list.name} deleted.`, settings);
    return reply.redirect('/lists', 303);
  });

  /**
   * The movie at `from` on one of the user's own lists: a form read before the list changed (or forged)
   * names a movie that is not there, and is refused (400) before anything is written.
   */
  async function entryAt(request: FastifyRequest, id: number, movieId: number, from: number) {
    const list = await ownList(request, id, Math.ceil(from / PER_PAGE));
    const entry = list.movies.items.find((item) => item.position === from);
    if (entry?.movie.ids.service !== movieId) {
      throw new ValidationError(
        'that movie is not at that place on the list (it changed since the page was read): reload the list and try again',
      );
    }
    return { list, entry };
  }

  app.post(
    '/lists/:id/movies/:movieId/note',
    { ...signedIn, schema: { params: ListMovieParams, body: NoteForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const id = Number(request.params.id);
      const movieId = Number(request.params.movieId);
      const { entry } = await entryAt(request, id, movieId, Number(request.body.from));
      // Empty: no note. Over the limit: the writer's 400, nothing written.
      const note = request.body.note.trim() || null;
      await library.write(user.id, (lib) => lib.putListMovies(id, [{ movieId, note }]));
      setFlash(
        reply,
        note ? `Note on ${entry.movie.title} saved.` : `Note on ${entry.movie.title} cleared.`,
        settings,
      );
      return reply.redirect(safeNext(request.body.next ?? `/lists/${id}`), 303);
    },
  );

  app.post(
    '/lists/:id/movies/:movieId/move',
    { ...signedIn, schema: { params: ListMovieParams, body: MoveForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const id = Number(request.params.id);
      const movieId = Number(request.params.movieId);
      const from = Number(request.body.from);
      const { list, entry } = await entryAt(request, id, movieId, from);
      const position = request.body.direction === 'up' ? from - 1 : from + 1;
      if (position < 1 || position > list.movieCount) {
        throw new ValidationError(
          `${entry.movie.title} is already ${position < 1 ? 'first' : 'last'} on the list`,
        );
      }
      await library.write(user.id, (lib) => lib.putListMovies(id, [{ movieId, position }]));
      setFlash(
        reply,
        `Moved ${entry.movie.title} ${request.body.direction} to number ${position}.`,
        settings,
      );
      return reply.redirect(safeNext(request.body.next ?? `/lists/${id}`), 303);
    },
  );

  app.post(
    '/lists/:id/movies/:movieId/remove',
    { ...signedIn, schema: { params: ListMovieParams, body: RemoveForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const id = Number(request.params.id);
      const movieId = Number(request.params.movieId);
      await ownList(request, id, 1);
      const removed = await library.write(user.id, (lib) => lib.removeListMovies(id, [movieId]));
      const title = (await movies.movieDetails(movieId))?.title ?? 'The movie';
      // A second "Remove" (a form sent twice, an old page) says what is so, not that it changed.
      setFlash(
        reply,
        removed > 0 ? `${title} taken off the list.` : `${title} was not on the list: nothing changed.`,
        settings,
      );
      return reply.redirect(safeNext(request.body.next ?? `/lists/${id}`), 303);
    },
  );

  app.get(
    '/u/:name/lists/:id',
    {
      schema: {
        params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), id: Id }),
        querystring: PageQuery,
      },
    },
    async (request, reply) => {
      const owner = await users.findByName(request.params.name);
      // As the public profile: off, private, nobody or a list that is not public, the same 404.
      if (!owner || !hasPublicProfile(owner)) throw notFound('ListNotFound', 'no public list here');
      const page = Number(request.query.page ?? '1');
      const list = await library.listWithMovies(owner, Number(request.params.id), null, {
        page,
        limit: PER_PAGE,
      });
      if (!list) throw notFound('ListNotFound', 'no public list here');
      const linked = request.signedIn !== null;
      return render(request, reply, 'public-list', publicListPage(owner, list, page, linked));
    },
  );
}
