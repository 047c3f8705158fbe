import { ImportFileError } from './import.types.js';
import type { ImportFile } from './import-files.js';

/**
 * How a file's bytes are text. Exports since 2018 are UTF-8 (some with a byte-order mark); IMDb's
 * older exports, and files saved again by a spreadsheet on Windows, are Windows-1252; Excel's
 * "Unicode text" is UTF-16 with a byte-order mark.
 */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

const encodings = new WeakMap<ImportFile, Promise<TextEncoding>>();

/**
 * The file's encoding, found by reading it through once (kept per file): a byte-order mark says it;
 * otherwise UTF-8 when every byte sequence is valid UTF-8, else Windows-1252. A file with a NUL byte
 * (and no UTF-16 mark) is binary and refused. `utf8Only`: anything but UTF-8 is refused (JSON).
 */
export function encodingOf(file: ImportFile, utf8Only = false): Promise<TextEncoding> {
  let found = encodings.get(file);
  if (!found) {
    found = detect(file);
    encodings.set(file, found);
  }
  return found.then((encoding) => {
    if (utf8Only && encoding !== 'utf-8') {
      throw new ImportFileError(`${file.name} is not valid UTF-8 text: save it as UTF-8 and try again`);
    }
    return encoding;
  });
}

async function detect(file: ImportFile): Promise<TextEncoding> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let first = true;
  let utf8 = true;
  for await (const chunk of file.open()) {
    if (first) {
      first = false;
      if (chunk[0] === 0xff && chunk[1] === 0xfe) return 'utf-16le';
      if (chunk[0] === 0xfe && chunk[1] === 0xff) return 'utf-16be';
    }
    if (chunk.includes(0)) throw new ImportFileError(`${file.name} is binary, not a text file`);
    if (utf8) {
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        utf8 = false;
      }
    }
  }
  if (utf8) {
    try {
      decoder.decode();
    } catch {
      utf8 = false;
    }
  }
  return utf8 ? 'utf-8' : 'windows-1252';
}

/** The file's text, chunk by chunk, without its byte-order mark. */
export async function* textOf(file: ImportFile, utf8Only = false): AsyncIterable<string> {
  const encoding = await encodingOf(file, utf8Only);
  // ignoreBOM false: the decoder drops a leading byte-order mark itself.
  const decoder = new TextDecoder(encoding, { ignoreBOM: false });
  for await (const chunk of file.open()) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/** The file's first line (at most 64 KB of it), for recognising the file; '' for an empty file. */
export async function firstLineOf(file: ImportFile): Promise<string> {
  let text = '';
  for await (const chunk of textOf(file)) {
    text += chunk;
    const end = text.search(/\r?\n/);
    if (end >= 0) return text.slice(0, end);
    if (text.length >= 65_536) break;
  }
  return text.slice(0, 65_536);
}
