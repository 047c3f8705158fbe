import { Type } from 'typebox';
import { ErrorBody, Nullable } from '../../shared/schemas.js';

export const FeedParams = Type.Object({
  uuid: Type.String({ description: 'the secret UUID of the feed URL' }),
});

export const RadarrListItem = Type.Object(
  {
    id: Type.Integer({ description: "the movie's TMDB id: what Radarr's Custom Lists reads" }),
    tmdb_id: Type.Integer({ description: 'the same TMDB id, under the name Movary serves it' }),
    imdb_id: Nullable(
      Type.String({ description: "the movie's IMDb id (tt...): what Radarr's StevenLu Custom reads" }),
    ),
    title: Type.String(),
    year: Nullable(Type.Integer({ description: 'the release year; null when unknown' })),
    added_at: Type.String({ description: 'ISO-8601 UTC time the movie was put on the watchlist' }),
  },
  { additionalProperties: false },
);

export const radarrFeedResponses = {
  200: Type.Array(RadarrListItem, {
    description:
      'the whole watchlist, oldest addition first; movies without a TMDB id are left out. One document, never paged',
  }),
  404: { ...ErrorBody, description: 'no feed at this URL (never created, regenerated or removed)' },
  429: { ...ErrorBody, description: 'too many reads of this URL, or of unknown feed URLs from this address' },
} as const;
