import { parseCinelog } from './cinelog.import.js';
import { parseImdb } from './imdb.import.js';
import type { ImportFormat, ImportParser } from './import.types.js';
import { parseLetterboxd } from './letterboxd.import.js';
import { parseMovary } from './movary.import.js';
import { parseNetflix } from './netflix.import.js';
import { parseTrakt } from './trakt.import.js';
import { parseTvTime } from './tvtime.import.js';

/** Each format's reader (one file per format). */
export const PARSERS: Record<ImportFormat, ImportParser> = {
  movary: parseMovary,
  letterboxd: parseLetterboxd,
  trakt: parseTrakt,
  imdb: parseImdb,
  tvtime: parseTvTime,
  netflix: parseNetflix,
  cinelog: parseCinelog,
};
