import type { onErrorAsyncHookHandler } from 'fastify';
import { AppError, notFound } from '../../shared/errors.js';
import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { MovieDetailsParams, MovieDetailsResponse } from './movie-details.schemas.js';
import { toMovieDetailsResponse } from './movies.presenter.js';
import {
  AddMovieBody,
  AddMovieResponse,
  MovieSearchPage,
  MovieSearchQuery,
  providerResponses,
} from './movies.provider.schemas.js';
import type { MoviesService } from './movies.service.js';

const common = { tags: ['movies'], security: tokenSecurity };

/** A 503 is the operator's problem (key, network), so it goes to the log; the key never does. */
const logProviderFailure: onErrorAsyncHookHandler = async (request, _reply, error) => {
  if (error instanceof AppError && error.statusCode === 503) {
    request.log.warn({ code: error.code }, error.message);
  }
};

export function moviesRoutes(
  app: App,
  { guards, movies, imageBaseUrl }: { guards: AuthGuards; movies: MoviesService; imageBaseUrl: string },
) {
  app.post(
    '/movies/add',
    {
      onRequest: guards.authenticated,
      onError: logProviderFailure,
      schema: {
        ...common,
        summary: 'Add a movie from TMDB by its TMDB id (a stored one is refreshed and keeps its id)',
        body: AddMovieBody,
        response: { 200: AddMovieResponse, ...providerResponses },
      },
    },
    async (request) => ({ serviceId: await movies.addFromProvider(request.body.providerId) }),
  );

  app.get(
    '/movies/search',
    {
      onRequest: guards.authenticated,
      onError: logProviderFailure,
      schema: {
        ...common,
        summary: "Search TMDB; results already stored here carry a service id and the caller's state",
        querystring: MovieSearchQuery,
        response: { 200: MovieSearchPage, ...providerResponses },
      },
    },
    async (request) => {
      const { search, page = 1, releaseYear } = request.query;
      return movies.search(request.caller!.userId, { search, page, releaseYear });
    },
  );

  app.get(
    '/movies/:serviceId',
    {
      onRequest: guards.authenticated,
      schema: {
        ...common,
        summary:
          'Everything stored of a movie: genres, countries, languages, companies, collection, cast and crew',
        params: MovieDetailsParams,
        response: { 200: MovieDetailsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { serviceId } = request.params;
      const details = await movies.movieDetails(serviceId);
      if (!details) throw notFound('MovieNotFound', `no movie with serviceId ${serviceId}`);
      return toMovieDetailsResponse(details, imageBaseUrl);
    },
  );
}
