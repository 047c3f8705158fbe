import type { Library } from '../library/library.service.js';
import type { User } from '../users/users.service.js';
import { csvLine } from './csv-cells.js';
import { type ExportFile, repeated, yearOf } from './export.types.js';

/**
 * One CSV that Letterboxd's importer accepts (letterboxd.com/about/importing-data): a row per play,
 * the first of a movie not a rewatch, the comment as the review on the entry's first row; plays on an
 * unknown date have no WatchedDate (Letterboxd marks the film watched); rated movies never played get
 * a row with the rating alone, its Rewatch empty (so that cinelog's own import tells it from a play on
 * an unknown date). The watchlist is not part of it (Letterboxd imports it separately).
 */
export function letterboxdCsv(deps: { library: Library }, user: User): ExportFile {
  const { library } = deps;
  async function* chunks() {
    yield csvLine(['tmdbID', 'imdbID', 'Title', 'Year', 'WatchedDate', 'Rating10', 'Rewatch', 'Review']);
    const played = new Set<number>();
    for await (const page of library.records(user, 'plays')) {
      for (const play of page) {
        const { movie } = play;
        // The entry's first row carries the review; the others (rewatches, all alike) repeat.
        const row = (rewatch: boolean, review: string | null) =>
          csvLine([
            movie.tmdbId,
            movie.imdbId,
            movie.title,
            yearOf(movie),
            play.watchedAt,
            play.rating,
            rewatch,
            review,
          ]);
        yield row(played.has(movie.serviceId), play.comment);
        played.add(movie.serviceId);
        yield* repeated(row(true, null), play.plays - 1);
      }
    }
    for await (const page of library.records(user, 'ratings')) {
      for (const rating of page) {
        if (played.has(rating.movie.serviceId)) continue;
        const { movie } = rating;
        yield csvLine([
          movie.tmdbId,
          movie.imdbId,
          movie.title,
          yearOf(movie),
          null,
          rating.rating,
          null,
          null,
        ]);
      }
    }
  }
  return { name: `letterboxd-${user.name}.csv`, chunks: chunks() };
}
