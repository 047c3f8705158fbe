import { calendarDateIn } from '../../shared/dates.js';
import type { Library, PlayRecord, RecordMovie } from '../library/library.service.js';
import type { User } from '../users/users.service.js';
import { csvLine } from './csv-cells.js';
import { type ExportFile, repeated, yearOf } from './export.types.js';

/**
 * The files of Letterboxd's own data export (Settings → Import & Export → Export your data), as a
 * ZIP, so that Letterboxd's importer and cinelog's read them back (docs/imports-exports.md):
 *
 *   diary.csv       Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date   a line a play
 *   reviews.csv     the same with Review: each entry with a comment, once
 *   watched.csv     Date,Name,Year,Letterboxd URI        every movie played, once
 *   ratings.csv     Date,Name,Year,Letterboxd URI,Rating the movies' ratings
 *   watchlist.csv   Date,Name,Year,Letterboxd URI
 *   likes/films.csv Date,Name,Year,Letterboxd URI        liked on Date
 *   lists/<slug>.csv  `Letterboxd list export v7`, the list's own row, then Position,Name,Year,URL,Description
 *
 * Ratings are stars (1-10 halved: 3.5); a diary line carries its entry's own rating, Rewatch `Yes`
 * where the entry is a rewatch (as the user set it, else derived: an earlier dated entry exists), and
 * its tags comma-separated. An entry of several plays is as many lines alike. Plays on an unknown date
 * are in watched.csv only (with their comment in reviews.csv, without a date).
 */
export async function letterboxdFiles(deps: { library: Library }, user: User): Promise<ExportFile[]> {
  const { library } = deps;
  const day = (instant: string) => calendarDateIn(new Date(instant), user.timezone);
  const film = (movie: RecordMovie) => [movie.title, yearOf(movie), uriOf(movie)];

  /** Every play record with its rewatch flag as the diary shows it. */
  async function* entries(): AsyncGenerator<{ play: PlayRecord; rewatch: boolean }> {
    const dated = new Set<number>();
    for await (const page of library.records(user, 'plays')) {
      for (const play of page) {
        const id = play.movie.serviceId;
        const rewatch = play.rewatch ?? (play.watchedAt !== null && dated.has(id));
        if (play.watchedAt !== null) dated.add(id);
        yield { play, rewatch };
      }
    }
  }
  const entryCells = (play: PlayRecord, rewatch: boolean) => [
    stars(play.entryRating),
    rewatch ? 'Yes' : null,
    play.tags.length > 0 ? play.tags.join(', ') : null,
  ];

  async function* diary() {
    yield csvLine(['Date', 'Name', 'Year', 'Letterboxd URI', 'Rating', 'Rewatch', 'Tags', 'Watched Date']);
    for await (const { play, rewatch } of entries()) {
      if (play.watchedAt === null) continue;
      const line = csvLine([
        play.watchedAt,
        ...film(play.movie),
        ...entryCells(play, rewatch),
        play.watchedAt,
      ]);
      yield* repeated(line, play.plays);
    }
  }
  async function* reviews() {
    yield csvLine([
      'Date',
      'Name',
      'Year',
      'Letterboxd URI',
      'Rating',
      'Rewatch',
      'Review',
      'Tags',
      'Watched Date',
    ]);
    for await (const { play, rewatch } of entries()) {
      if (play.comment === null) continue;
      const [rating, rewatchCell, tags] = entryCells(play, rewatch);
      yield csvLine([
        play.watchedAt,
        ...film(play.movie),
        rating,
        rewatchCell,
        play.comment,
        tags,
        play.watchedAt,
      ]);
    }
  }
  async function* watched() {
    yield csvLine(FILM_HEADER);
    const seen = new Set<number>();
    for await (const page of library.records(user, 'plays')) {
      for (const play of page) {
        if (seen.has(play.movie.serviceId)) continue;
        seen.add(play.movie.serviceId);
        yield csvLine([play.watchedAt, ...film(play.movie)]);
      }
    }
  }
  async function* ratings() {
    yield csvLine([...FILM_HEADER, 'Rating']);
    for await (const page of library.records(user, 'ratings')) {
      for (const r of page) yield csvLine([day(r.ratedAt), ...film(r.movie), stars(r.rating)]);
    }
  }
  async function* watchlist() {
    yield csvLine(FILM_HEADER);
    for await (const page of library.records(user, 'watchlist')) {
      for (const w of page) yield csvLine([day(w.addedAt), ...film(w.movie)]);
    }
  }
  async function* likes() {
    yield csvLine(FILM_HEADER);
    for await (const page of library.likeRecords(user)) {
      for (const like of page) yield csvLine([day(like.likedAt), ...film(like.movie)]);
    }
  }
  async function* list(listId: number) {
    const found = await library.listRecord(user, listId);
    if (!found) return;
    yield csvLine(['Letterboxd list export v7']);
    yield csvLine(['Date', 'Name', 'Tags', 'URL', 'Description']);
    yield csvLine([day(found.createdAt), found.name, null, null, found.description]);
    yield '\r\n';
    yield csvLine(['Position', 'Name', 'Year', 'URL', 'Description']);
    for (const item of found.movies) {
      yield csvLine([found.ranked ? item.position : null, ...film(item.movie), item.note]);
    }
  }

  const files: ExportFile[] = [
    { name: 'diary.csv', chunks: diary() },
    { name: 'reviews.csv', chunks: reviews() },
    { name: 'watched.csv', chunks: watched() },
    { name: 'ratings.csv', chunks: ratings() },
    { name: 'watchlist.csv', chunks: watchlist() },
    { name: 'likes/films.csv', chunks: likes() },
  ];
  const slugs = new Set<string>();
  // Oldest list first: a slug two lists share goes to the older, the other gets `-2`.
  const lists = [...(await library.lists(user, user.id))].sort((a, b) => a.id - b.id);
  for (const { id, name } of lists) {
    const base = listSlug(name);
    let slug = base;
    for (let n = 2; slugs.has(slug); n++) slug = `${base}-${n}`;
    slugs.add(slug);
    files.push({ name: `lists/${slug}.csv`, chunks: list(id) });
  }
  return files;
}

const FILM_HEADER = ['Date', 'Name', 'Year', 'Letterboxd URI'];

/** A 1-10 rating as Letterboxd's stars (0.5-5), or an empty cell. */
const stars = (rating: number | null) => (rating === null ? null : rating / 2);

/** The film's address on Letterboxd where its slug is known (cinelog's importer reads the slug back). */
const uriOf = (movie: RecordMovie) =>
  movie.letterboxdId ? `https://letterboxd.com/film/${movie.letterboxdId}/` : null;

/**
 * A list's file name as Letterboxd makes it: lower case, letters and digits of any script kept, the
 * rest (slashes, emoji, spaces) one `-`; `list` when nothing is left. At most 100 characters.
 */
export function listSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
  return slug === '' ? 'list' : slug;
}
