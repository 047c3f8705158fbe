import { Type } from 'typebox';
import { AppError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import type { MovieSearchPage } from '../../movies/movies.service.js';
import { asSentence } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import { Prefill, prefillOf } from '../shell/play-form.js';
import type { Pages } from '../shell/render.js';
import type { WebDeps } from '../web.deps.js';
import { PEOPLE_SHOWN, searchPage } from './search.page.js';

const SearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })),
  ...Prefill,
});

/** The services these pages use. */
export type SearchDeps = Pick<WebDeps, 'movies' | 'library' | 'imageBaseUrl' | 'publicImageBaseUrl'>;

/**
 * `/search`: the people cinelog stores whose name matches (first page only), and TMDB's movies, each
 * with "Log a play" (the log form, history/log.routes.ts), "Add to watchlist", "Add to a list" and, for
 * a stored movie, its director and a heart; the log form's prefill (an import's unmatched row) is
 * carried on to "Log a play" and "Add to watchlist".
 */
export function searchRoutes(
  app: App,
  { render }: Pages,
  { movies, library, imageBaseUrl, publicImageBaseUrl }: SearchDeps,
): void {
  app.get(
    '/search',
    { preHandler: requireSignIn, schema: { querystring: SearchQuery } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const q = (request.query.q ?? '').trim();
      const page = Number(request.query.page ?? '1');
      /** TMDB's page of movies, or why TMDB refused. */
      const tmdbSearch = async (): Promise<{ found: MovieSearchPage | null; error: string | null }> => {
        if (q === '') return { found: null, error: null };
        try {
          return { found: await movies.search(user.id, { search: q, page }), error: null };
        } catch (caught) {
          if (!(caught instanceof AppError)) throw caught;
          return { found: null, error: asSentence(caught.message) };
        }
      };
      // The people (a scan of their names: 50 to 90 ms at 200,000 people) while TMDB answers; a single
      // character would match nearly everyone.
      const [{ found, error }, people, lists] = await Promise.all([
        tmdbSearch(),
        q.length >= 2 && page === 1 ? movies.searchPeople(q, PEOPLE_SHOWN) : [],
        library.lists(user, user.id),
      ]);
      const stored = (found?.results ?? []).flatMap((result) =>
        result.ids.service === null ? [] : [result.ids.service],
      );
      const [directors, liked] = await Promise.all([
        movies.directorsOf(stored),
        library.likedAmong(user.id, stored),
      ]);
      const values = { q, page, prefill: prefillOf(request.query), here: request.url };
      return render(
        request,
        reply,
        'search',
        searchPage(
          user.ratingScale,
          values,
          found,
          error,
          imageBaseUrl,
          { people, directors, liked, lists },
          publicImageBaseUrl,
        ),
      );
    },
  );
}
