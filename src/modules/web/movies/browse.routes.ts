import { Type } from 'typebox';
import { notFound } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import type { Page } from '../../../shared/pagination.js';
import type { ListFacets, PlayedEntry } from '../../library/library.service.js';
import { personHref } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import type { WebDeps } from '../web.deps.js';
import { MOVIES_SORTS, moviesPage, personPage } from './browse.page.js';

const PER_PAGE = 24;
const Int = (digits: number) => Type.Optional(Type.String({ pattern: `^[0-9]{1,${digits}}$` }));
const MoviesQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  genre: Int(9),
  decade: Type.Optional(Type.String({ pattern: '^(18[7-9]|19[0-9]|20[0-9])0$' })),
  language: Type.Optional(Type.String({ pattern: '^([a-z]{2,3})?$' })),
  rating: Type.Optional(Type.String({ pattern: '^([1-9]|10)?$' })),
  person: Int(9),
  sort: Type.Optional(Type.Union(MOVIES_SORTS.map((sort) => Type.Literal(sort.value)))),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
});
const PersonRef = Type.Object({ ref: Type.String({ pattern: '^[1-9][0-9]{0,8}(-[^/]{0,200})?$' }) });

/** The services these pages use. */
export type BrowseDeps = Pick<WebDeps, 'library' | 'movies' | 'publicImageBaseUrl'>;

/** `/movies` (the movies the user watched, with filters and sorts) and the person page `/people/{id}-{slug}`. */
export function browseRoutes(
  app: App,
  { render }: Pages,
  { library, movies, publicImageBaseUrl }: BrowseDeps,
): void {
  const signedIn = { preHandler: requireSignIn };

  app.get('/movies', { ...signedIn, schema: { querystring: MoviesQuery } }, async (request, reply) => {
    const { user } = currentUser(request);
    const query = request.query;
    const sort = (query.sort ?? 'addedAt') as (typeof MOVIES_SORTS)[number]['value'];
    const order = query.order ?? MOVIES_SORTS.find((entry) => entry.value === sort)!.order;
    const page = Number(query.page ?? '1');
    const filter = {
      search: query.q?.trim() || undefined,
      genreId: query.genre ? Number(query.genre) : undefined,
      decade: query.decade ? Number(query.decade) : undefined,
      language: query.language || undefined,
      minRating: query.rating ? Number(query.rating) : undefined,
      personId: query.person ? Number(query.person) : undefined,
    };
    const [listBytes, facetsBytes, person] = await Promise.all([
      library.page(
        'played',
        user,
        { ...filter, sortBy: sort, sortOrder: order, page, limit: PER_PAGE },
        JSON.stringify,
        'objects',
      ),
      library.facetsBytes(user, 'played'),
      filter.personId ? movies.personName(filter.personId) : null,
    ]);
    const filtered = Object.values(filter).some((value) => value !== undefined);
    const kept = {
      q: query.q,
      genre: query.genre,
      decade: query.decade,
      language: query.language,
      rating: query.rating,
      person: query.person,
      sort,
      order,
    };
    // Kept whole while the list's and the filters' bytes (and the person's name) stand (Renderer.cached).
    // The hearts are read only when the page is made: a like moves the owner's data version, so the
    // list's bytes are new after it and the kept page is not asked for again.
    return render.cached(request, reply, {
      template: 'movies',
      sources: [listBytes, facetsBytes],
      extra: person ? `${person.id}:${person.name}` : '',
      data: async () => {
        const list = JSON.parse(listBytes.toString('utf8')) as Page<PlayedEntry>;
        const liked = await library.likedOn(user.id, list.items);
        return moviesPage(
          user.ratingScale,
          { kept, filtered, page, person },
          list,
          JSON.parse(facetsBytes.toString('utf8')) as ListFacets,
          liked,
        );
      },
    });
  });

  app.get('/people/:ref', { ...signedIn, schema: { params: PersonRef } }, async (request, reply) => {
    const { user } = currentUser(request);
    const id = Number.parseInt(request.params.ref, 10);
    const person = await movies.person(id);
    if (!person) throw notFound('PersonNotFound', `no person with id ${id}`);
    const canonical = personHref(id, person.name);
    if (`/people/${request.params.ref}` !== decodeURIComponent(canonical))
      return reply.redirect(canonical, 301);
    const watched = await library.cachedList('played', user, {
      personId: id,
      sortBy: 'releaseDate',
      sortOrder: 'desc',
      limit: 100,
    });
    const shown = [
      ...watched.items.map((entry) => entry.movie.ids.service),
      ...person.cast.map((credit) => credit.movie.id),
      ...person.crew.map((credit) => credit.movie.id),
    ];
    const liked = await library.likedAmong(user.id, shown);
    return render(
      request,
      reply,
      'person',
      personPage(user.ratingScale, person, watched, publicImageBaseUrl, liked),
    );
  });
}
