const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-GB', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        timeZone,
      });
    } catch {
      // A zone this runtime does not know (saved by an older one): UTC rather than a broken page.
      return timeZone === 'UTC' ? new Intl.DateTimeFormat('en-GB') : formatFor('UTC');
    }
    formats.set(timeZone, format);
  }
  return format;
}

/**
 * An ISO timestamp as people read it in `timeZone`, e.g. "21 Nov 2026, 14:05"; '' for null (the page
 * says what a missing time means: "Never", "Not yet").
 */
export function formatDateTime(iso: string | null, timeZone: string): string {
  if (iso === null) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return formatFor(timeZone).format(date);
}

/** A service's message ("the code is not correct") as a sentence on a page. */
export const asSentence = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;

/** A title as a readable address part: "Spirited Away" → "spirited-away" (letters of any script kept). */
export function slugOf(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
}

/** A movie page's address: `/movies/{id}-{slug}` (the id alone is enough; the slug is for people). */
export function movieHref(movieId: number, title: string): string {
  const slug = slugOf(title);
  return slug === '' ? `/movies/${movieId}` : `/movies/${movieId}-${encodeURIComponent(slug)}`;
}

/** A person page's address: `/people/{id}-{slug}`. */
export function personHref(personId: number, name: string): string {
  const slug = slugOf(name);
  return slug === '' ? `/people/${personId}` : `/people/${personId}-${encodeURIComponent(slug)}`;
}

const dayFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A calendar date (YYYY-MM-DD) as people read it, "21 Nov 2026"; "Unknown date" for null. */
export function formatDay(date: string | null): string {
  if (date === null) return 'Unknown date';
  const parsed = new Date(`${date.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) ? date : dayFormat.format(parsed);
}

/** The year of a release date, or '' when unknown. */
export const yearOf = (releaseDate: string | null): string => (releaseDate ? releaseDate.slice(0, 4) : '');

/** Minutes watched as whole hours, rounded (the totals of the dashboard, statistics and profile). */
export const hoursOf = (minutes: number): number => Math.round(minutes / 60);

/** Minutes as "2 h 05 min" / "45 min". */
export function formatRuntime(minutes: number | null): string {
  if (minutes === null || minutes <= 0) return '';
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours === 0 ? `${rest} min` : `${hours} h ${String(rest).padStart(2, '0')} min`;
}

/**
 * A 1–10 rating in the user's scale: "3½ stars" (stars: half-stars 0.5–5) or "7/10" (points); the
 * text a screen reader hears and a list shows.
 */
export function ratingLabel(rating: number, scale: 'stars' | 'points'): string {
  if (scale === 'points') return `${rating}/10`;
  const whole = Math.floor(rating / 2);
  const half = rating % 2 === 1;
  if (whole === 0) return 'half a star';
  return `${whole}${half ? '½' : ''} star${whole === 1 && !half ? '' : 's'}`;
}
