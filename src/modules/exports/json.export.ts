import type { Library, RecordMovie } from '../library/library.service.js';
import type { WebhooksService } from '../scrobble/webhooks.service.js';
import type { User } from '../users/users.service.js';
import { type ExportFile, yearOf } from './export.types.js';

/**
 * The version of the cinelog JSON format; `cinelog import cinelog` reads it and the ones before.
 * 2: each history entry's own `rating`, `rewatch` (null: derived) and `tags`; `likes`; `lists`.
 */
export const CINELOG_EXPORT_VERSION = 2;

const movieOf = (movie: RecordMovie) => ({
  title: movie.title,
  originalTitle: movie.originalTitle,
  year: yearOf(movie),
  tmdbId: movie.tmdbId,
  imdbId: movie.imdbId,
  traktId: movie.traktId,
  letterboxdId: movie.letterboxdId,
});

/**
 * Everything a user owns as one JSON document: profile settings, every play (with comment, position
 * and the entry's own rating, rewatch flag and tags), the watchlist, ratings and likes with their
 * times, the lists with their movies, and webhook settings without their addresses (the secret part).
 * Written a record at a time.
 */
export function cinelogJson(
  deps: { library: Library; webhooks: WebhooksService; now: Date },
  user: User,
): ExportFile {
  async function* chunks() {
    const webhooks = (await deps.webhooks.list(user.id)).map((w) => ({
      server: w.server,
      scrobbleWatches: w.scrobbleWatches,
      scrobbleRatings: w.scrobbleRatings,
      accountFilter: w.accountFilter,
    }));
    const head = {
      format: 'cinelog',
      version: CINELOG_EXPORT_VERSION,
      exportedAt: deps.now.toISOString(),
      user: {
        name: user.name,
        timezone: user.timezone,
        privacy: user.privacy,
        watchlistAutoRemove: user.watchlistAutoRemove,
        ratingScale: user.ratingScale,
        publicProfile: user.publicProfile,
      },
      webhooks,
    };
    yield `${JSON.stringify(head).slice(0, -1)},\n"history":[`;
    let first = true;
    for await (const page of deps.library.records(user, 'plays')) {
      for (const play of page) {
        const item = {
          movie: movieOf(play.movie),
          watchedAt: play.watchedAt,
          plays: play.plays,
          comment: play.comment,
          position: play.position,
          rating: play.entryRating,
          rewatch: play.rewatch,
          tags: play.tags,
        };
        yield `${first ? '\n' : ',\n'}${JSON.stringify(item)}`;
        first = false;
      }
    }
    yield '\n],\n"watchlist":[';
    first = true;
    for await (const page of deps.library.records(user, 'watchlist')) {
      for (const entry of page) {
        yield `${first ? '\n' : ',\n'}${JSON.stringify({ movie: movieOf(entry.movie), addedAt: entry.addedAt })}`;
        first = false;
      }
    }
    yield '\n],\n"ratings":[';
    first = true;
    for await (const page of deps.library.records(user, 'ratings')) {
      for (const rating of page) {
        const item = { movie: movieOf(rating.movie), rating: rating.rating, ratedAt: rating.ratedAt };
        yield `${first ? '\n' : ',\n'}${JSON.stringify(item)}`;
        first = false;
      }
    }
    yield '\n],\n"likes":[';
    first = true;
    for await (const page of deps.library.likeRecords(user)) {
      for (const like of page) {
        yield `${first ? '\n' : ',\n'}${JSON.stringify({ movie: movieOf(like.movie), likedAt: like.likedAt })}`;
        first = false;
      }
    }
    yield '\n],\n"lists":[';
    first = true;
    // Oldest first, a list a line with its movies in position order.
    const lists = [...(await deps.library.lists(user, user.id))].sort((a, b) => a.id - b.id);
    for (const { id } of lists) {
      const list = await deps.library.listRecord(user, id);
      if (!list) continue;
      const item = {
        name: list.name,
        description: list.description,
        ranked: list.ranked,
        visibility: list.visibility,
        movies: list.movies.map((m) => ({
          movie: movieOf(m.movie),
          position: m.position,
          note: m.note,
          addedAt: m.addedAt,
        })),
      };
      yield `${first ? '\n' : ',\n'}${JSON.stringify(item)}`;
      first = false;
    }
    yield '\n]}\n';
  }
  return { name: `cinelog-${user.name}.json`, chunks: chunks() };
}
