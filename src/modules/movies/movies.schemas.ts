import { type Static, Type } from 'typebox';
import { CalendarDate, Nullable, ServiceId } from '../../shared/schemas.js';

const Rating = Type.Object({ average: Nullable(Type.Number()), count: Nullable(Type.Integer()) });

export const Movie = Type.Object(
  {
    title: Type.String(),
    originalTitle: Nullable(Type.String()),
    releaseDate: Nullable(CalendarDate),
    tagline: Nullable(Type.String()),
    overview: Nullable(Type.String()),
    originalLanguage: Nullable(Type.String()),
    runtime: Nullable(Type.Integer({ description: 'minutes' })),
    posterPath: Nullable(Type.String({ description: 'absolute URL of the poster image' })),
    ids: Type.Object({
      service: Type.Integer({ description: "this service's movie id (serviceId)" }),
      provider: Nullable(Type.Integer({ description: 'TMDB id' })),
      tracker: Nullable(Type.Integer({ description: 'Trakt id' })),
      catalog: Nullable(Type.String({ description: 'IMDb id' })),
      journal: Nullable(Type.String({ description: 'Letterboxd id' })),
    }),
    userRating: Nullable(Type.Integer({ minimum: 1, maximum: 10, description: "the list owner's rating" })),
    externalRatings: Type.Object({
      provider: { ...Rating, description: 'TMDB vote average and count' },
      catalog: { ...Rating, description: 'IMDb rating and votes' },
    }),
    updatedAt: Nullable(CalendarDate),
    createdAt: CalendarDate,
  },
  { description: 'A movie' },
);
export type Movie = Static<typeof Movie>;

export const ServiceIdItem = Type.Object({
  serviceId: ServiceId,
});
