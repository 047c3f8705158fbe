import { ImportFileError, type ImportOutput, type ImportParser } from './import.types.js';
import { type CsvTable, csvRecords, csvTable, readRow } from './import-csv.js';
import { baseName, type ImportFile } from './import-files.js';
import { badCell, playDate, playDayOf, type SlashOrder, slashOrderOf } from './import-values.js';

// Netflix's viewing history, its movies only (docs/imports-exports.md, "Netflix"). Each file is
// recognised by its header, whatever its name:
//   NetflixViewingHistory.csv (Account → Profile → Viewing activity → Download all):
//     Title,Date   the date in the account's locale (1/9/23, 27/07/2020, 23-06-23, 16.8.2022, 2020/05/27)
//   CONTENT_INTERACTION/ViewingActivity.csv of the full data download ("Download your personal information"):
//     Profile Name,Start Time,Duration,Attributes,Title,Supplemental Video Type,Device Type,Bookmark,…
// The files name titles only (no year, no id): each movie is a play matched by its title alone, a guess
// listed for review. Episodes (`Show: Season 1: Episode`) are counted as skipped.

const HISTORY_COLUMNS = ['Title', 'Date'];
const ACTIVITY_COLUMNS = ['Profile Name', 'Start Time', 'Title', 'Supplemental Video Type'];
const KNOWN = [
  ...HISTORY_COLUMNS,
  ...ACTIVITY_COLUMNS,
  'Duration',
  'Attributes',
  'Device Type',
  'Bookmark',
  'Latest Bookmark',
  'Country',
  'Title Name',
];

type Kind = 'history' | 'activity' | 'my list' | 'thumbs';

const TV_EPISODES = 'TV episodes';

export const parseNetflix: ImportParser = async (files, context, out) => {
  // Every file is recognised before any row is read.
  const found: { table: CsvTable; kind: Kind }[] = [];
  for (const file of candidatesOf(files)) {
    const table = await csvTable(file, KNOWN);
    const kind = table ? kindOf(table.header) : null;
    if (table && kind) found.push({ table, kind });
    else if (files.length === 1 || isNamedAsHistory(file)) {
      throw new ImportFileError(
        `${file.name} is not a Netflix viewing history: its header is ${table ? table.header.join(',') : 'missing'} (expected ${EXPECTED})`,
      );
    }
    // The data download's other files (devices, searches, billing…) are not viewing history.
  }
  const histories = found.filter((f) => f.kind === 'history');
  const activities = found.filter((f) => f.kind === 'activity');
  if (histories.length === 0 && activities.length === 0) {
    throw new ImportFileError(`found no Netflix viewing history: expected ${EXPECTED}`);
  }
  // A profile's own history wins over the data download's activity of every profile: both list the
  // same plays, and the history needs no choice of profile.
  const surveys = new Map<CsvTable, ActivitySurvey>();
  if (histories.length === 0)
    for (const { table } of activities) surveys.set(table, await surveyActivity(table));
  for (const { table, kind } of found) {
    if (kind === 'history') await readHistory(table, context, out);
    else if (kind === 'activity' && histories.length === 0)
      await readActivity(table, surveys.get(table)!.shows, context, out);
    else {
      const what =
        kind === 'activity'
          ? `rows of ${table.file.name.split('/').at(-1)} (the viewing history file was read instead)`
          : kind === 'my list'
            ? "titles on Netflix's My List"
            : 'Netflix thumbs ratings';
      for await (const _ of csvRecords(table)) out.skip(what);
    }
  }
};

const EXPECTED =
  'NetflixViewingHistory.csv with the header Title,Date, or ViewingActivity.csv of the data download (Profile Name,Start Time,…,Title,Supplemental Video Type,…)';

/** The files to look at: the CSV files (any file when it is the only one: a renamed upload). */
const candidatesOf = (files: readonly ImportFile[]) =>
  files.length === 1 ? files : files.filter((file) => baseName(file).endsWith('.csv'));

const isNamedAsHistory = (file: ImportFile) => /viewing ?(history|activity)/.test(baseName(file));

const has = (header: readonly string[], columns: readonly string[]) =>
  columns.every((column) => header.some((cell) => cell.toLowerCase() === column.toLowerCase()));

function kindOf(header: readonly string[]): Kind | null {
  if (has(header, ACTIVITY_COLUMNS)) return 'activity';
  if (has(header, HISTORY_COLUMNS) && !has(header, ['Profile Name'])) return 'history';
  if (has(header, ['Title Name', 'Thumbs Value'])) return 'thumbs';
  if (has(header, ['Title Name', 'Profile Name'])) return 'my list';
  return null;
}

// --- NetflixViewingHistory.csv -------------------------------------------------------------------

async function readHistory(table: CsvTable, context: { today: string }, out: ImportOutput) {
  const { order, shows } = await surveyHistory(table);
  for await (const record of csvRecords(table)) {
    const at = { file: table.file.name, line: record.line };
    readRow(
      out,
      at,
      record,
      () => {
        const title = record.get('Title');
        const what = shows.kindOf(title);
        if (what !== 'movie') return out.skip(what);
        const watchedAt = playDate('Date', yearFirst(record.get('Date')), context.today, order);
        out.row({
          ...at,
          kind: 'play',
          movie: { title, titleOnly: true },
          watchedAt,
          plays: 1,
          comment: null,
        });
      },
      'Title',
    );
  }
}

const NUMERIC_DATE = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{2}|\d{4})$/;

/**
 * What a first pass over the whole file tells: the shows among its titles (see Shows), and the order
 * of its numeric dates. A first number above 12 means day first, a second above 12 month first. When
 * no date tells (every day of the file is the 12th or before): month first for `/` with a two-digit
 * year (the US's `1/2/23`), else day first (`01/02/2023`, `01-02-23`, `1.2.2023`: the rest of the world).
 */
async function surveyHistory(table: CsvTable): Promise<{ order: SlashOrder; shows: Shows }> {
  let fallback: SlashOrder | null = null;
  let order: SlashOrder | null = null;
  const shows = new Shows();
  for await (const record of csvRecords(table)) {
    shows.see(record.get('Title'));
    const value = record.get('Date');
    const numeric = order === null ? NUMERIC_DATE.exec(value) : null;
    if (!numeric) continue;
    fallback ??= numeric[2] === '/' && numeric[4]!.length === 2 ? 'mdy' : 'dmy';
    order = slashOrderOf([value]);
  }
  return { order: order ?? fallback ?? 'dmy', shows };
}

/** Japan's and others' year-first dates (`2020/05/27`, `2020.05.27`) as `YYYY-MM-DD`; others as they are. */
function yearFirst(value: string): string {
  const date = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})\.?$/.exec(value);
  return date ? `${date[1]}-${date[2]!.padStart(2, '0')}-${date[3]!.padStart(2, '0')}` : value;
}

// --- ViewingActivity.csv -------------------------------------------------------------------------

/** Profiles named in a refusal. */
const PROFILES_NAMED = 10;

interface ActivitySurvey {
  shows: Shows;
}

/**
 * A first pass over the activity: the shows among its titles (see Shows), and its profiles. The data
 * download holds every profile of the account, and a profile is not a cinelog user: a file with more
 * than one is refused, naming them (the profile's own NetflixViewingHistory.csv has no such choice).
 */
async function surveyActivity(table: CsvTable): Promise<ActivitySurvey> {
  const profiles = new Set<string>();
  const shows = new Shows();
  for await (const record of csvRecords(table)) {
    const profile = record.get('Profile Name');
    if (profile !== '' && profiles.size <= PROFILES_NAMED * 100) profiles.add(profile);
    if (record.get('Supplemental Video Type') === '') shows.see(record.get('Title'));
  }
  if (profiles.size > 1) {
    const names = [...profiles].slice(0, PROFILES_NAMED).map((name) => `"${name}"`);
    const more = profiles.size > PROFILES_NAMED ? ` and ${profiles.size - PROFILES_NAMED} more` : '';
    throw new ImportFileError(
      `${table.file.name} holds the viewing of ${profiles.size} profiles (${names.join(', ')}${more}): import one person's history, the NetflixViewingHistory.csv of your profile (Netflix → Account → Profile → Viewing activity → Download all), or this file with only your profile's rows`,
    );
  }
  return { shows };
}

async function readActivity(
  table: CsvTable,
  shows: Shows,
  context: { timezone: string; today: string },
  out: ImportOutput,
) {
  // Netflix logs a session per sitting: a movie watched in two sittings on a day is one play.
  const seen = new Set<string>();
  for await (const record of csvRecords(table)) {
    const at = { file: table.file.name, line: record.line };
    readRow(
      out,
      at,
      record,
      () => {
        if (record.get('Supplemental Video Type') !== '')
          return out.skip('Netflix trailers, previews and other extras');
        const title = record.get('Title');
        const what = shows.kindOf(title);
        if (what !== 'movie') return out.skip(what);
        const day = playDayOf(
          'Start Time',
          startTime(record.get('Start Time')),
          context.timezone,
          context.today,
        );
        const key = `${day}\u0000${title}`;
        if (seen.has(key)) return out.skip('more sittings of a movie on a day it was already played');
        seen.add(key);
        out.row({
          ...at,
          kind: 'play',
          movie: { title, titleOnly: true },
          watchedAt: day,
          plays: 1,
          comment: null,
        });
      },
      'Title',
    );
  }
}

/** `Start Time`: `YYYY-MM-DD HH:MM:SS` in UTC (a spreadsheet's re-save drops the seconds). */
function startTime(value: string): Date {
  const time = /^(\d{4}-\d{2}-\d{2})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  const moment = time
    ? new Date(`${time[1]}T${time[2]!.padStart(2, '0')}:${time[3]}:${time[4] ?? '00'}Z`)
    : null;
  if (!moment || Number.isNaN(moment.getTime()))
    throw badCell('Start Time', value, 'a date and time (YYYY-MM-DD HH:MM:SS, UTC)');
  return moment;
}

// --- Movies and episodes -------------------------------------------------------------------------

/** Words of a season, in the languages Netflix writes them: `Season 2`, `Staffel 2`, `6. Sezon`. */
const SEASON =
  'season|series|staffel|temporada|saison|stagione|seizoen|sæson|säsong|sesong|kausi|sezon|sezona|sezóna|évad|sezonul|сезон|σεζόν|עונה|الموسم|ซีซั่น|musim|mùa|phần|시즌|シーズン';
/** Words of a limited series, a whole part of a title: `Show: Limited Series: Episode`. */
const LIMITED_SERIES = new Set([
  'limitedseries',
  'miniseries',
  'miniserie',
  'minissérie',
  'minisérie',
  'miniseria',
  'miniserial',
  'minisarja',
  'serielimitada',
  'sérielimitée',
  'serielimitata',
  'limitierteserie',
  'begrenzteserie',
  'sınırlıdizi',
  'kısadizi',
  'リミテッドシリーズ',
]);
/** Words of an episode: `Show: Episode 6`, `GIGN: Épisode 6`, `Show: Season 1: Chapter 10`. */
const EPISODE =
  'episode|épisode|episodio|episódio|episod|epizod|epizoda|folge|aflevering|afl\\.|jakso|avsnitt|afsnit|odcinek|bölüm|серия|эпизод|エピソード|에피소드|chapter|capítulo|chapitre|kapitel|hoofdstuk|capitolo|rozdział';
/** Words of a part of a show (`Money Heist: Part 5: …`): an episode only when more follows. */
const PART =
  'part|parte|partie|teil|deel|del|osa|część|kısım|volume|vol\\.?|volumen|band|book|libro|livre|buch|boek|collection|colección|coleção';
const NUMBER =
  '\\d+|[ivxlc]+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|[a-z]';

const SEASON_PART = new RegExp(
  `^(?:(?:${SEASON})\\s*\\d+|\\d+[.ªº]?\\s*(?:${SEASON}))(?!\\p{L})|^第.+季`,
  'iu',
);
const EPISODE_PART = new RegExp(`^(?:${EPISODE})\\s*(?:\\d+|[ivxlc]+)$`, 'iu');
const EPISODE_SUFFIX = new RegExp(`\\((?:${EPISODE})\\s*\\d+\\)$`, 'iu');
const NUMBERED_PART = new RegExp(`^(?:${PART}|${EPISODE})\\s*(?:${NUMBER})$`, 'iu');
const MOVIE_WORD = /\b(?:the movie|movie|film)\b/iu;

/**
 * What a title is: a movie (kept), or what it is counted under. Netflix names an episode
 * `Show: Season 1: Episode`, and a movie may have a colon too (`Glass Onion: A Knives Out Mystery`), so
 * the parts of a title (split at `: `) decide:
 * - a part after the first that is a season (`Season 2`, `Staffel 2`, `6. Sezon`, `シーズン1`), a
 *   limited series (`Limited Series`, `Miniserie`), or a numbered episode (`Episode 6`, `Chapter 3`):
 *   an episode;
 * - a numbered part, volume, book or chapter with more after it (`Money Heist: Part 5: …`,
 *   `Avatar: Book 1: …`): an episode; as the last part it is a movie's (`…: Part 2`, `Kill Bill: Vol. 1`);
 * - three parts or more (`American Horror Story: Murder House: Pilot`): an episode, unless one says it
 *   is a movie or a film;
 * - anything else, one colon included, is a movie.
 * A title that is blank, or that starts with a colon (`: Episode 7`), is one Netflix no longer names.
 */
export function titleKind(title: string): 'movie' | string {
  if (title === '') return 'titles Netflix no longer names';
  if (title.startsWith(':')) return TV_EPISODES;
  if (EPISODE_SUFFIX.test(title)) return TV_EPISODES;
  const parts = title.split(/\s*:\s+/).map((part) => part.trim());
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    if (SEASON_PART.test(part) || EPISODE_PART.test(part)) return TV_EPISODES;
    if (LIMITED_SERIES.has(part.toLowerCase().replace(/[\s-]+/g, ''))) return TV_EPISODES;
    if (i < parts.length - 1 && NUMBERED_PART.test(part)) return TV_EPISODES;
  }
  if (parts.length >= 3 && !parts.some((part) => MOVIE_WORD.test(part))) return TV_EPISODES;
  return 'movie';
}

/** Distinct titles of a name, with different first words after it, that make the name a show's. */
const SHOW_TITLES = 4;
const SHOW_WORDS = 3;
const ARTICLES = new Set(
  'the a an le la les l el los las lo il gli i der die das den de het een o os as um uma un une una ein eine en et ett'.split(
    ' ',
  ),
);

/**
 * The shows of a file, found from all its titles. Netflix names the episodes of a show that has one
 * season `Show: Episode title`, the same shape as a movie's `Glass Onion: A Knives Out Mystery`. So a
 * name before the colon that starts SHOW_TITLES different titles or more, whose first words after the
 * colon (articles aside) differ at least SHOW_WORDS ways, is a show's: `Squid Game: Red Light, Green
 * Light`, `Squid Game: Hell`, `Squid Game: The Man with the Umbrella`, `Squid Game: Gganbu`. A series of
 * films shares its words (`Mission: Impossible II`, `Mission: Impossible - Fallout`…) or has fewer
 * titles (`The Lord of the Rings: …`), and stays movies. Memory: a few titles per name.
 */
export class Shows {
  readonly #names = new Map<string, { titles: Set<string>; words: Set<string> } | 'show'>();

  /** Takes a title of the file into account. */
  see(title: string) {
    if (titleKind(title) !== 'movie') return;
    const split = nameOf(title);
    if (!split) return;
    const seen = this.#names.get(split.name) ?? { titles: new Set<string>(), words: new Set<string>() };
    if (seen === 'show') return;
    seen.titles.add(title.toLowerCase());
    seen.words.add(split.word);
    this.#names.set(
      split.name,
      seen.titles.size >= SHOW_TITLES && seen.words.size >= SHOW_WORDS ? 'show' : seen,
    );
  }

  /** What the title is (titleKind), knowing the file's shows. */
  kindOf(title: string): 'movie' | string {
    const kind = titleKind(title);
    if (kind !== 'movie') return kind;
    const split = nameOf(title);
    return split && this.#names.get(split.name) === 'show' ? TV_EPISODES : 'movie';
  }
}

/** The name before a title's first colon, and the first word after it that is not an article. */
function nameOf(title: string): { name: string; word: string } | null {
  const colon = /\s*:\s+/.exec(title);
  if (!colon) return null;
  const words = title
    .slice(colon.index + colon[0].length)
    .toLowerCase()
    .split(/[\s'\u2019]+/)
    .filter((word) => word !== '');
  const word = words.find((w) => !ARTICLES.has(w)) ?? words[0] ?? '';
  return { name: title.slice(0, colon.index).toLowerCase(), word };
}
