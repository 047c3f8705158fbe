import { calendarDateIn } from '../../shared/dates.js';
import { hasPublicProfile, type User } from '../users/users.service.js';

/**
 * What a play, a date, a position, a comment and a rating may be: the one set of limits of what a user
 * keeps (docs/api-notes.md, "What a play may be"). The library's writer enforces them on every write,
 * whoever asks (`LibraryWriter`); the API's schemas, the web forms and the importers take their limits
 * and their messages from here, so that a value gets the same answer everywhere.
 */

/** The most plays one (movie, date) entry holds: a write adding past it is refused. */
export const MAX_PLAYS = 1_000_000;

/** The longest comment of a watch date, in characters. */
export const MAX_COMMENT_LENGTH = 10_000;

/** The first day a play may be on: before it, no film was shown. */
export const FIRST_PLAY_DATE = '1870-01-01';

/** A position orders the movies of one day: any number from -MAX_POSITION to MAX_POSITION, kept as sent. */
export const MAX_POSITION = 1_000_000_000;

/** A rating is a whole number from 1 to 10. */
export const MIN_RATING = 1;
export const MAX_RATING = 10;

/**
 * Why a play cannot be on `date` (`YYYY-MM-DD`), or null when it can: not after `today` (the user's
 * day, in their time zone) and not before FIRST_PLAY_DATE.
 */
export function playDateProblem(date: string, today: string): string | null {
  if (date > today) return 'the date is in the future';
  if (date < FIRST_PLAY_DATE) return 'the date is before the first movie';
  return null;
}

/** Why `plays` cannot be an entry's plays, or null. */
export function playsProblem(plays: number): string | null {
  return Number.isSafeInteger(plays) && plays >= 1 && plays <= MAX_PLAYS
    ? null
    : `plays must be a whole number from 1 to ${MAX_PLAYS.toLocaleString('en')}`;
}

/** Why `rating` cannot be a rating, or null. */
export function ratingProblem(rating: number): string | null {
  return Number.isInteger(rating) && rating >= MIN_RATING && rating <= MAX_RATING
    ? null
    : `a rating is from ${MIN_RATING} to ${MAX_RATING}`;
}

/** The limits as the web forms' fields state them (`min`, `max`, `maxlength`). */
export const PLAY_LIMITS = {
  firstDate: FIRST_PLAY_DATE,
  maxPlays: MAX_PLAYS,
  maxComment: MAX_COMMENT_LENGTH,
  maxPosition: MAX_POSITION,
} as const;

/** Why `position` cannot be an entry's position, or null. */
export function positionProblem(position: number): string | null {
  return Number.isFinite(position) && Math.abs(position) <= MAX_POSITION
    ? null
    : `the position must be a number from -${MAX_POSITION.toLocaleString('en')} to ${MAX_POSITION.toLocaleString('en')}`;
}

/** Why `comment` cannot be an entry's comment, or null. */
export function commentProblem(comment: string): string | null {
  return comment.length <= MAX_COMMENT_LENGTH
    ? null
    : `the comment is longer than ${MAX_COMMENT_LENGTH.toLocaleString('en')} characters`;
}

/** The user's day at the instant `now` (ISO or Date), in their time zone: the last day a play may be on. */
export function todayOf(now: string | Date, timeZone: string): string {
  return calendarDateIn(typeof now === 'string' ? new Date(now) : now, timeZone);
}

/** An entry as a write gives it (the library's `WatchDateWrite` without its movie). */
export interface EntryValues {
  watchedAt: string | null;
  plays: number;
  comment: string | null;
  position?: number | 'after-last' | null | undefined;
}

/** Why an entry cannot be written as given, or null: its date, plays, comment and position in turn. */
export function entryProblem(entry: EntryValues, today: string): string | null {
  return (
    (entry.watchedAt === null ? null : playDateProblem(entry.watchedAt, today)) ??
    playsProblem(entry.plays) ??
    (entry.comment === null ? null : commentProblem(entry.comment)) ??
    (typeof entry.position === 'number' ? positionProblem(entry.position) : null)
  );
}

/** The longest tag of a diary entry, in characters, once trimmed. */
export const MAX_TAG_LENGTH = 100;

/** The most tags one diary entry has. */
export const MAX_TAGS_PER_ENTRY = 50;

/**
 * A tag as it is kept: trimmed, inner runs of white space made one space. Tags are one user's and
 * case-insensitive: "Horror" and "horror " are one tag, spelled as it was first written.
 */
export const tagName = (tag: string): string => tag.trim().replace(/\s+/gu, ' ');

/** The key that makes two spellings one tag: the name, Unicode-normalised and lower-cased. */
export const tagKey = (tag: string): string => tagName(tag).normalize('NFC').toLowerCase();

/** Why `tag` cannot be a tag, or null. */
export function tagProblem(tag: string): string | null {
  const name = tagName(tag);
  if (name === '') return 'a tag cannot be empty';
  if (name.length > MAX_TAG_LENGTH) {
    return `a tag is at most ${MAX_TAG_LENGTH} characters ("${name.slice(0, 20)}…" is longer)`;
  }
  return null;
}

/**
 * Whether a play on `date` is a rewatch as the diary derives it (diary.repository.ts): an entry of
 * the same movie on an earlier date exists (`entries`: the movie's; an undated one never counts).
 */
export const hasEarlierEntry = (entries: readonly { watchedAt: string | null }[], date: string): boolean =>
  entries.some((entry) => entry.watchedAt !== null && entry.watchedAt < date);

/** Why an entry cannot have `count` tags, or null. */
export function tagCountProblem(count: number): string | null {
  return count <= MAX_TAGS_PER_ENTRY ? null : `an entry has at most ${MAX_TAGS_PER_ENTRY} tags, not ${count}`;
}

// Likes and lists (issue 30; docs/likes-and-lists.md).

/** The longest name of a list, in characters; a name holds at least one character besides spaces. */
export const MAX_LIST_NAME_LENGTH = 100;

/** The longest description of a list, in characters. */
export const MAX_LIST_DESCRIPTION_LENGTH = 10_000;

/** The longest note of a movie on a list, in characters. */
export const MAX_LIST_NOTE_LENGTH = 2_000;

/** The most movies one list holds. */
export const MAX_LIST_MOVIES = 5_000;

/** The most lists one user keeps. */
export const MAX_LISTS_PER_USER = 1_000;

/** Who may read a list besides its owner: no one, any signed-in user, or anyone. */
export const LIST_VISIBILITIES = ['private', 'users', 'public'] as const;
export type ListVisibility = (typeof LIST_VISIBILITIES)[number];

/** Why `name` cannot be a list's name, or null. */
export function listNameProblem(name: string): string | null {
  if (name.trim() === '') return 'the name of a list may not be empty';
  return name.length <= MAX_LIST_NAME_LENGTH
    ? null
    : `the name of a list is longer than ${MAX_LIST_NAME_LENGTH.toLocaleString('en')} characters`;
}

/** Why `description` cannot be a list's description, or null. */
export function listDescriptionProblem(description: string): string | null {
  return description.length <= MAX_LIST_DESCRIPTION_LENGTH
    ? null
    : `the description is longer than ${MAX_LIST_DESCRIPTION_LENGTH.toLocaleString('en')} characters`;
}

/** Why `note` cannot be the note of a movie on a list, or null. */
export function listNoteProblem(note: string): string | null {
  return note.length <= MAX_LIST_NOTE_LENGTH
    ? null
    : `the note is longer than ${MAX_LIST_NOTE_LENGTH.toLocaleString('en')} characters`;
}

/** Why `visibility` cannot be a list's visibility, or null. */
export function listVisibilityProblem(visibility: string): string | null {
  return (LIST_VISIBILITIES as readonly string[]).includes(visibility)
    ? null
    : `the visibility of a list is one of ${LIST_VISIBILITIES.join(', ')}`;
}

/**
 * Whether `readerId` (null: no one signed in) may read a list of `owner` that has `visibility`. The owner
 * always; nobody else while the owner's privacy is `private` (as for their history); a `users` list any
 * signed-in user; a `public` list any signed-in user, and anyone without signing in while the owner's
 * public profile is on (the API always asks for a token: there `public` reads as `users`).
 */
export function mayReadList(owner: User, visibility: ListVisibility, readerId: number | null): boolean {
  if (readerId === owner.id) return true;
  if (owner.privacy === 'private' || visibility === 'private') return false;
  if (readerId !== null) return true;
  return visibility === 'public' && hasPublicProfile(owner);
}
