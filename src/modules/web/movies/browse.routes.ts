import { Type } from 'typebox';
import { notFound } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import type { Page } from '../../../shared/pagination.js';
import type { ListFacets, PlayedEntry } from '../../library/library.service.js';
import { formatDay, movieHref, personHref, yearOf } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { movieCard, pageImageUrl, paginationView } from '../shell/view-models.js';
import type { WebDeps } from '../web.deps.js';

const PER_PAGE = 24;
const SORTS = [
  { value: 'title', label: 'Title', order: 'asc' },
  { value: 'addedAt', label: 'Last watched', order: 'desc' },
  { value: 'plays', label: 'Plays', order: 'desc' },
  { value: 'rating', label: 'Your rating', order: 'desc' },
  { value: 'releaseDate', label: 'Release date', order: 'desc' },
  { value: 'runtime', label: 'Runtime', order: 'desc' },
] as const;
const Int = (digits: number) => Type.Optional(Type.String({ pattern: `^[0-9]{1,${digits}}$` }));
const MoviesQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  genre: Int(9),
  decade: Type.Optional(Type.String({ pattern: '^(18[7-9]|19[0-9]|20[0-9])0$' })),
  language: Type.Optional(Type.String({ pattern: '^([a-z]{2,3})?$' })),
  rating: Type.Optional(Type.String({ pattern: '^([1-9]|10)?$' })),
  person: Int(9),
  sort: Type.Optional(Type.Union(SORTS.map((sort) => Type.Literal(sort.value)))),
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
    const sort = (query.sort ?? 'addedAt') as (typeof SORTS)[number]['value'];
    const order = query.order ?? SORTS.find((entry) => entry.value === sort)!.order;
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
    return render.cached(request, reply, {
      template: 'movies',
      sources: [listBytes, facetsBytes],
      extra: person ? `${person.id}:${person.name}` : '',
      data: () => {
        const list = JSON.parse(listBytes.toString('utf8')) as Page<PlayedEntry>;
        return {
          title: 'Movies',
          values: kept,
          facets: JSON.parse(facetsBytes.toString('utf8')) as ListFacets,
          sorts: SORTS,
          person: person && {
            id: person.id,
            name: person.name,
            clear: `/movies?${new URLSearchParams(Object.entries({ ...kept, person: undefined }).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''))}`,
          },
          filtered,
          cards: list.items.map((entry) => {
            const plays = entry.watchedDates.reduce((sum, date) => sum + date.plays, 0);
            const last = entry.watchedDates
              .map((date) => date.date)
              .filter((date): date is string => date !== null)
              .sort()
              .at(-1);
            return movieCard(entry.movie, {
              scale: user.ratingScale,
              meta: [last ? formatDay(last) : '', plays > 1 ? `${plays} plays` : '']
                .filter(Boolean)
                .join(' · '),
            });
          }),
          pagination: paginationView('/movies', { ...kept }, page, list.maxPage),
        };
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
    const watchedIds = new Set(watched.items.map((entry) => entry.movie.ids.service));
    const roles = new Map<number, { movie: (typeof person.cast)[number]['movie']; roles: string[] }>();
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
    const poster = (path: string | null) => (path ? pageImageUrl(`${publicImageBaseUrl}/w342${path}`) : null);
    return render(request, reply, 'person', {
      title: person.name,
      person: {
        name: person.name,
        department: person.knownForDepartment,
        picture: person.profilePath ? pageImageUrl(`${publicImageBaseUrl}/w185${person.profilePath}`) : null,
        moviesHref: `/movies?person=${id}`,
      },
      watched: watched.items.map((entry) =>
        movieCard(entry.movie, {
          scale: user.ratingScale,
          meta: (roles.get(entry.movie.ids.service)?.roles ?? []).join(', '),
        }),
      ),
      unwatched: [...roles.values()]
        .filter((entry) => !watchedIds.has(entry.movie.id))
        .map((entry) => ({
          id: entry.movie.id,
          href: movieHref(entry.movie.id, entry.movie.title),
          title: entry.movie.title,
          year: yearOf(entry.movie.releaseDate),
          posterUrl: poster(entry.movie.posterPath),
          meta: entry.roles.join(', '),
          rating: null,
        })),
    });
  });
}
