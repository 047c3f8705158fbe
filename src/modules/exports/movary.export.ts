import { calendarDateIn } from '../../shared/dates.js';
import type { Library } from '../library/library.service.js';
import type { User } from '../users/users.service.js';
import { csvLine } from './csv-cells.js';
import { type ExportFile, repeated, yearOf } from './export.types.js';

/**
 * Movary's three CSV files, as Movary exports (and imports) them: the history one line per play, the
 * ratings 1-10, the watchlist with the time added (the user's time zone).
 */
export function movaryCsvFiles(deps: { library: Library }, user: User): ExportFile[] {
  const { library } = deps;
  async function* history() {
    yield csvLine(['title', 'year', 'tmdbId', 'imdbId', 'watchedAt', 'comment', 'location']);
    for await (const page of library.records(user, 'plays')) {
      for (const play of page) {
        const line = csvLine([
          play.movie.title,
          yearOf(play.movie),
          play.movie.tmdbId,
          play.movie.imdbId,
          play.watchedAt,
          play.comment,
          null,
        ]);
        yield* repeated(line, play.plays);
      }
    }
  }
  async function* ratings() {
    yield csvLine(['title', 'year', 'tmdbId', 'imdbId', 'userRating']);
    for await (const page of library.records(user, 'ratings')) {
      for (const r of page)
        yield csvLine([r.movie.title, yearOf(r.movie), r.movie.tmdbId, r.movie.imdbId, r.rating]);
    }
  }
  async function* watchlist() {
    yield csvLine(['title', 'year', 'tmdbId', 'imdbId', 'addedAt']);
    for await (const page of library.records(user, 'watchlist')) {
      for (const w of page) {
        const added = new Date(w.addedAt);
        const time = localTime(added, user.timezone);
        yield csvLine([
          w.movie.title,
          yearOf(w.movie),
          w.movie.tmdbId,
          w.movie.imdbId,
          `${calendarDateIn(added, user.timezone)} ${time}`,
        ]);
      }
    }
  }
  return [
    { name: 'history.csv', chunks: history() },
    { name: 'ratings.csv', chunks: ratings() },
    { name: 'watchlist.csv', chunks: watchlist() },
  ];
}

/** `HH:MM:SS` of an instant in a time zone. */
const localTime = (instant: Date, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hourCycle: 'h23',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(instant);
