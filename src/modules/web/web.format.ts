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
