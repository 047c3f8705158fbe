import { type Static, Type } from 'typebox';
import { CalendarDate, Nullable, ServiceId } from '../../shared/schemas.js';

// GET /movies/{serviceId}: our own endpoint, everything cinelog keeps of a movie. The spec's Movie
// object is left as it is; this one is a superset of its catalogue fields.

export const MovieDetailsParams = Type.Object({ serviceId: ServiceId });

const ImageUrl = (what: string) => Nullable(Type.String({ description: `absolute URL of the ${what}` }));

export const PersonRef = Type.Object(
  {
    id: Type.Integer({ description: "cinelog's id of the person" }),
    providerId: Type.Integer({ description: 'TMDB id of the person' }),
    name: Type.String(),
    profilePath: ImageUrl('profile picture'),
  },
  { description: 'A person: stored once, however many movies they are in' },
);

const Rating = Type.Object({ average: Nullable(Type.Number()), count: Nullable(Type.Integer()) });

export const MovieDetailsResponse = Type.Object(
  {
    ids: Type.Object({
      service: Type.Integer({ description: "this service's movie id (serviceId)" }),
      provider: Nullable(Type.Integer({ description: 'TMDB id' })),
      tracker: Nullable(Type.Integer({ description: 'Trakt id' })),
      catalog: Nullable(Type.String({ description: 'IMDb id' })),
      journal: Nullable(Type.String({ description: 'Letterboxd id' })),
    }),
    title: Type.String(),
    originalTitle: Nullable(Type.String()),
    releaseDate: Nullable(CalendarDate),
    tagline: Nullable(Type.String()),
    overview: Nullable(Type.String()),
    originalLanguage: Nullable(
      Type.Object({
        code: Type.String({ description: 'ISO 639-1 code, as the Movie object gives it' }),
        englishName: Nullable(Type.String({ description: 'null when no stored movie speaks it' })),
        name: Nullable(Type.String({ description: 'the native name' })),
      }),
    ),
    runtime: Nullable(Type.Integer({ description: 'minutes' })),
    posterPath: ImageUrl('poster (as in the Movie object)'),
    backdropPath: ImageUrl('backdrop'),
    externalRatings: Type.Object({
      provider: { ...Rating, description: 'TMDB vote average and count' },
      catalog: { ...Rating, description: 'IMDb rating and votes' },
    }),
    genres: Type.Array(
      Type.Object({
        id: Type.Integer(),
        providerId: Type.Integer({ description: 'TMDB id' }),
        name: Type.String(),
      }),
    ),
    productionCountries: Type.Array(
      Type.Object({ code: Type.String({ description: 'ISO 3166-1 code' }), name: Type.String() }),
    ),
    spokenLanguages: Type.Array(
      Type.Object({
        code: Type.String({ description: 'ISO 639-1 code' }),
        englishName: Nullable(Type.String()),
        name: Nullable(Type.String({ description: 'the native name' })),
      }),
    ),
    productionCompanies: Type.Array(
      Type.Object({
        id: Type.Integer(),
        providerId: Type.Integer({ description: 'TMDB id' }),
        name: Type.String(),
        logoPath: ImageUrl('logo'),
        originCountry: Nullable(Type.String({ description: 'ISO 3166-1 code' })),
      }),
    ),
    collection: Nullable(
      Type.Object(
        {
          id: Type.Integer(),
          providerId: Type.Integer({ description: 'TMDB id' }),
          name: Type.String(),
          posterPath: ImageUrl('poster'),
          backdropPath: ImageUrl('backdrop'),
        },
        { description: 'the saga the movie belongs to' },
      ),
    ),
    directors: Type.Array(PersonRef, { description: 'credited as Director, in crew order' }),
    writers: Type.Array(PersonRef, { description: 'the Writing department, each person once' }),
    cast: Type.Array(
      Type.Object({
        person: PersonRef,
        character: Nullable(Type.String()),
        order: Type.Integer({ description: 'place on the bill, 0 first' }),
      }),
      { description: 'in billing order, at most 100' },
    ),
    crew: Type.Array(
      Type.Object({ job: Type.String(), department: Type.String(), people: Type.Array(PersonRef) }),
      {
        description:
          'one entry per job kept (directors, writers, producers, music, camera...), directors first',
      },
    ),
    updatedAt: Nullable({ ...CalendarDate, description: 'last refresh from TMDB; null until one' }),
    createdAt: CalendarDate,
  },
  {
    description:
      "Everything cinelog keeps of a movie (the spec's Movie fields, less the user's rating, and more)",
  },
);
export type MovieDetailsResponse = Static<typeof MovieDetailsResponse>;
