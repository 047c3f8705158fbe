import { Type } from 'typebox';
import { isCalendarDate } from '../../../shared/dates.js';
import { ValidationError } from '../../../shared/errors.js';
import {
  commentProblem,
  playDateProblem,
  playsProblem,
  positionProblem,
  tagCountProblem,
  tagKey,
  tagName,
  tagProblem,
} from '../../library/library.rules.js';
import type { RatingScale } from '../../users/users.service.js';
import { ratingLabel } from './format.js';

/**
 * The fields of a play as the forms send them. Generous limits here, so a value out of range comes
 * back as the form with its reason rather than a bare 400.
 */
export const PlayFields = {
  date: Type.Optional(Type.String({ maxLength: 40 })),
  unknownDate: Type.Optional(Type.String({ maxLength: 10 })),
  plays: Type.Optional(Type.String({ maxLength: 40 })),
  rating: Type.Optional(Type.String({ maxLength: 10 })),
  comment: Type.Optional(Type.String({ maxLength: 20_000 })),
};

/**
 * What the log form starts with, carried from a link through the search to the form: an import's
 * unmatched row (Settings → Import and export) gives its play's date, or none, and its rating.
 */
export const Prefill = {
  date: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })),
  unknownDate: Type.Optional(Type.Literal('on')),
  rating: Type.Optional(Type.String({ pattern: '^(10|[1-9])$' })),
};
type PrefillValues = { date?: string; unknownDate?: 'on'; rating?: string };
/** The prefill values an address carries, to hand on (links) or to fill in (the form). */
export const prefillOf = (query: PrefillValues): Record<string, string> =>
  Object.fromEntries(
    (['date', 'unknownDate', 'rating'] as const).flatMap((key) => (query[key] ? [[key, query[key]]] : [])),
  );

export interface PlayInput {
  date?: string | undefined;
  unknownDate?: string | undefined;
  plays?: string | undefined;
  rating?: string | undefined;
  comment?: string | undefined;
}

export interface Play {
  /** Null: the unknown date. */
  date: string | null;
  plays: number;
  comment: string | null;
}

/** The play a form describes; a ValidationError says what is wrong. `today` in the user's time zone. */
export function parsePlay(input: PlayInput, today: string): Play {
  return {
    date: parsePlayDate(input, today),
    plays: parsePlays(input.plays),
    comment: parseComment(input.comment),
  };
}

/** The date fields of a play form: null with "Unknown date" ticked, else a day a play may be on. */
export function parsePlayDate(input: Pick<PlayInput, 'date' | 'unknownDate'>, today: string): string | null {
  if (input.unknownDate === 'on') return null;
  const value = (input.date ?? '').trim();
  if (!isCalendarDate(value)) throw new ValidationError('the date must be a day such as 2026-11-21');
  const problem = playDateProblem(value, today);
  if (problem) throw new ValidationError(problem);
  return value;
}

// Each field is held to the library's rules, with their words: the API and the imports give the same.
export function parsePlays(value: string | undefined): number {
  const text = (value ?? '1').trim() || '1';
  const plays = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  const problem = playsProblem(plays);
  if (problem) throw new ValidationError(problem);
  return plays;
}

export function parseComment(value: string | undefined): string | null {
  const comment = (value ?? '').trim();
  const problem = commentProblem(comment);
  if (problem) throw new ValidationError(problem);
  return comment === '' ? null : comment;
}

/** A position field: empty is 1, otherwise any number the library keeps. */
export function parsePosition(value: string | undefined): number {
  const text = (value ?? '').trim() || '1';
  const position = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : Number.NaN;
  const problem = positionProblem(position);
  if (problem) throw new ValidationError(problem);
  return position;
}

/** A rating field: '' is none, otherwise 1–10. */
export function parseRating(value: string | undefined): number | null {
  const text = (value ?? '').trim();
  if (text === '') return null;
  const rating = Number(text);
  if (!/^\d+$/.test(text) || rating < 1 || rating > 10) throw new ValidationError('a rating is from 1 to 10');
  return rating;
}

/** The choices of the rating control in the user's scale: "half a star" … "5 stars", or 1/10 … 10/10. */
export const ratingChoices = (scale: RatingScale) =>
  Array.from({ length: 10 }, (_, index) => ({
    value: index + 1,
    label: ratingLabel(index + 1, scale),
    scale,
  })).reverse();

/**
 * A tags field: names separated by commas, each held to the library's rules (empty pieces are
 * dropped; spellings that differ only by case are one tag). A ValidationError says what is wrong.
 */
export function parseTags(value: string | undefined): string[] {
  const tags = new Map<string, string>();
  for (const piece of (value ?? '').split(',')) {
    if (piece.trim() === '') continue;
    const problem = tagProblem(piece);
    if (problem) throw new ValidationError(problem);
    const key = tagKey(piece);
    if (!tags.has(key)) tags.set(key, tagName(piece));
  }
  const problem = tagCountProblem(tags.size);
  if (problem) throw new ValidationError(problem);
  return [...tags.values()];
}

/**
 * The rewatch checkbox: as the form first showed it (`rewatchShown`: ticked when an earlier entry
 * exists) it is left to the diary to derive (undefined); changed, it is the user's word.
 */
export function parseRewatch(input: { rewatch?: string | undefined; rewatchShown?: string | undefined }) {
  const ticked = input.rewatch === 'on';
  const shown = input.rewatchShown === undefined ? undefined : input.rewatchShown === 'on';
  if (shown === undefined) return ticked ? true : undefined;
  return ticked === shown ? undefined : ticked;
}
