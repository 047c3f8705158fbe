/** A webhook request as the drivers see it, whatever its content type. */
export interface WebhookInput {
  /** The request's Content-Type, lower-cased, without parameters ('' when absent). */
  contentType: string;
  /** Text fields of a multipart/form-data body (files such as Plex's `thumb` are dropped); else null. */
  fields: Readonly<Record<string, string>> | null;
  /** The raw body as text for every other content type (JSON, text/plain, urlencoded, none); else null. */
  raw: string | null;
  /** When cinelog received the request. */
  receivedAt: Date;
}

/** The ids a report carries for its movie; either may be missing. */
export interface MovieRef {
  tmdbId?: number;
  /** `tt` followed by digits. */
  imdbId?: string;
  /** For the inbox only, never for matching. */
  title?: string;
}

/** What a driver makes of one report. */
export type ParsedReport =
  /** A finished watch of a movie, at `watchedAt` (the event's own time, or the receipt time). */
  | { kind: 'watch'; event: string; account: string | null; movie: MovieRef; watchedAt: Date }
  /** Plex `media.rate`: the user's rating as cinelog keeps it, a whole number 1-10; null clears it. */
  | { kind: 'rate'; event: string; account: string | null; movie: MovieRef; rating: number | null }
  /** Well-formed, but not something cinelog records (a pause, a trailer, an episode...). */
  | { kind: 'ignored'; event: string; account: string | null; reason: string }
  /** The body is not a report at all: not JSON, empty, not an object, no payload field. */
  | { kind: 'rejected'; reason: string };

/** One media server's reading of its requests; the registry (media-servers.ts) says whose. */
export interface ScrobbleDriver {
  parse(input: WebhookInput): ParsedReport;
}
