import type { BackfillServer, PlayedMovie } from '../../integrations/media-servers/media-server.types.js';
import { calendarDateIn } from '../../shared/dates.js';
import type { ImportRow } from '../imports/import.types.js';

/** The servers as the pages and the unmatched list name them. */
export const SERVER_NAMES: Record<BackfillServer, string> = {
  plex: 'Plex',
  jellyfin: 'Jellyfin',
  emby: 'Emby',
};

/**
 * A server's played movies as import rows, each play on its day in the user's time zone:
 * - each view the server recorded is one play on the view's day (several views of a day add up);
 * - the plays the server counts beyond its views (`playCount - views.length`: a trimmed Plex history,
 *   Jellyfin's and Emby's count with only the last date) are one play on the last play's day when no
 *   view is on that day, and the rest plays on an unknown date.
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
  const file = SERVER_NAMES[server];
  movies.forEach((movie, index) => {
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
      rows.push({ file, line, kind: 'play', movie: ref, watchedAt: null, plays: beyond, comment: null });
    }
  });
  return rows;
}

/** An instant's day in the zone; null for one that is no instant (a server's garbage is skipped). */
function dayOf(instant: string, timeZone: string): string | null {
  const date = new Date(instant);
  return Number.isNaN(date.getTime()) ? null : calendarDateIn(date, timeZone);
}
