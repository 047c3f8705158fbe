/**
 * What a play, a date, a comment and a rating may be: the one set of limits of what a user keeps.
 * The library's writer enforces the counts; the web forms and the importers take their limits from
 * here (the API's schemas too, for plays and comments).
 */

/** The most plays one (movie, date) entry holds: a write adding past it is refused. */
export const MAX_PLAYS = 1_000_000;

/** The longest comment of a watch date, in characters. */
export const MAX_COMMENT_LENGTH = 10_000;

/** The first day a play may be on: before it, no film was shown. */
export const FIRST_PLAY_DATE = '1870-01-01';

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
