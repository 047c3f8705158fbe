import type { BackfillServer, PlayedMovie } from '../../integrations/media-servers/media-server.types.js';
import { calendarDateIn } from '../../shared/dates.js';
import type { ImportRow } from '../imports/import.types.js';
import { MEDIA_SERVERS } from '../scrobble/media-servers.js';

/**
 * A server's played movies as import rows, each play on its day in the user's time zone:
 * - each view the server recorded is one play on the view's day (several views of a day add up);
 * - the plays the server counts beyond its views (`playCount - views.length`: a trimmed Plex history,
 *   Jellyfin's and Emby's count with only the last date) are one play on the last play's day when no
 *   view is on that day, and the rest plays on an unknown date: said as the movie's count in all
 *   (`inAll`), so that the plays the library has of it on any date count toward it.
 * The import's plan then adds only what the library lacks: a date with N plays here and M stored gets
 * max(N - M, 0) more, so a second run, or a webhook's play on the same day, adds nothing.
 * `line` is the movie's place in the server's listing (1 for the first), for the unmatched list.
 */
export function playRows(
  server: BackfillServer,
  movies: readonly PlayedMovie[],
  timeZone: string,
): ImportRow[] {
  const rows: ImportRow[] = [];
  const file = MEDIA_SERVERS[server].name;
  mergedMovies(movies).forEach((movie, index) => {
    const ref = {
      tmdbId: movie.tmdbId ?? undefined,
      imdbId: movie.imdbId ?? undefined,
      title: movie.title ?? undefined,
      year: movie.year ?? undefined,
    };
    const days = new Map<string, number>();
    for (const view of movie.views) {
      const day = dayOf(view, timeZone);
      if (day !== null) days.set(day, (days.get(day) ?? 0) + 1);
    }
    const counted = [...days.values()].reduce((sum, n) => sum + n, 0);
    let beyond = Math.max((Number.isInteger(movie.playCount) ? movie.playCount : 0) - counted, 0);
    const lastDay = movie.lastPlayedAt === null ? null : dayOf(movie.lastPlayedAt, timeZone);
    if (beyond > 0 && lastDay !== null && !days.has(lastDay)) {
      days.set(lastDay, 1);
      beyond -= 1;
    }
    // A played movie the server gives no play of at all is still seen once.
    if (days.size === 0 && beyond === 0) beyond = 1;
    const line = index + 1;
    for (const [day, plays] of [...days].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      rows.push({ file, line, kind: 'play', movie: ref, watchedAt: day, plays, comment: null });
    }
    if (beyond > 0) {
      // The count in all: what the library has of the movie on any date counts toward it, so a count
      // that grew by one play (dated above) adds that play alone, never a second one on no date.
      let total = beyond;
      for (const plays of days.values()) total += plays;
      rows.push({
        file,
        line,
        kind: 'play',
        movie: ref,
        watchedAt: null,
        plays: total,
        comment: null,
        inAll: true,
      });
    }
  });
  return rows;
}

/**
 * The played movies with each movie once. Pages read by position may give an item twice (a movie
 * played during the backfill moves the rest on): the later copy holds. Plex gives a movie deleted and
 * added again as two items (its old history rows without ids, grouped by title and year, and the new
 * item) that may hold the same play: items of one title and year whose ids do not disagree are one
 * movie, each instant counted as often as the item that has it most, and its count the largest. Two
 * copies of a movie in two libraries count as one too: the views of both are kept, the larger count.
 */
export function mergedMovies(movies: readonly PlayedMovie[]): PlayedMovie[] {
  const byItem = new Map<string, PlayedMovie>();
  for (const movie of movies) byItem.set(movie.itemId, movie);
  const merged: PlayedMovie[] = [];
  const byTitle = new Map<string, PlayedMovie[]>();
  for (const movie of byItem.values()) {
    const key =
      movie.title !== null && movie.year !== null ? `${movie.title.toLowerCase()}|${movie.year}` : null;
    const same = key === null ? undefined : byTitle.get(key)?.find((other) => agree(other, movie));
    if (!same) {
      const copy = { ...movie, views: [...movie.views] };
      merged.push(copy);
      if (key !== null) byTitle.set(key, [...(byTitle.get(key) ?? []), copy]);
      continue;
    }
    same.tmdbId ??= movie.tmdbId;
    same.imdbId ??= movie.imdbId;
    same.views = unionOfViews(same.views, movie.views);
    same.playCount = Math.max(same.playCount, movie.playCount, same.views.length);
    if (
      movie.lastPlayedAt !== null &&
      (same.lastPlayedAt === null || movie.lastPlayedAt > same.lastPlayedAt)
    ) {
      same.lastPlayedAt = movie.lastPlayedAt;
    }
  }
  return merged;
}

const agree = (a: PlayedMovie, b: PlayedMovie) =>
  (a.tmdbId === null || b.tmdbId === null || a.tmdbId === b.tmdbId) &&
  (a.imdbId === null || b.imdbId === null || a.imdbId === b.imdbId);

/** Each instant as often as the list that has it most; oldest first. */
function unionOfViews(a: readonly string[], b: readonly string[]): string[] {
  const counts = (views: readonly string[]) => {
    const map = new Map<string, number>();
    for (const view of views) map.set(view, (map.get(view) ?? 0) + 1);
    return map;
  };
  const left = counts(a);
  for (const [view, n] of counts(b)) left.set(view, Math.max(left.get(view) ?? 0, n));
  return [...left].flatMap(([view, n]) => Array<string>(n).fill(view)).sort();
}

/** An instant's day in the zone; null for one that is no instant (a server's garbage is skipped). */
function dayOf(instant: string, timeZone: string): string | null {
  const date = new Date(instant);
  return Number.isNaN(date.getTime()) ? null : calendarDateIn(date, timeZone);
}
