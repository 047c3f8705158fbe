import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { Zip, ZipDeflate } from 'fflate';
import type { Clock } from '../../shared/clock.js';
import type { Library } from '../library/library.service.js';
import type { WebhooksService } from '../scrobble/webhooks.service.js';
import type { User } from '../users/users.service.js';
import type { ExportFile, ExportFormat } from './export.types.js';
import { cinelogJson } from './json.export.js';
import { letterboxdFiles } from './letterboxd.export.js';
import { movaryCsvFiles } from './movary.export.js';

export interface ExportsService {
  /** The files of a user's export in `format`: one (json), or several, to be zipped (movary, letterboxd). */
  files(format: ExportFormat, user: User): Promise<ExportFile[]>;
}

export function createExportsService(deps: {
  library: Library;
  webhooks: WebhooksService;
  clock: Clock;
}): ExportsService {
  return {
    async files(format, user) {
      if (format === 'json') return [cinelogJson({ ...deps, now: deps.clock.now() }, user)];
      if (format === 'letterboxd') return letterboxdFiles(deps, user);
      return movaryCsvFiles(deps, user);
    },
  };
}

/**
 * Writes chunks to a stream in pieces of about 64 KB, waiting whenever it asks to: memory stays flat
 * however large the export.
 */
export async function writeChunks(chunks: AsyncIterable<string | Uint8Array>, out: Writable): Promise<void> {
  let batch: (string | Uint8Array)[] = [];
  let size = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const bytes = Buffer.concat(batch.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
    batch = [];
    size = 0;
    if (!out.write(bytes)) await once(out, 'drain');
  };
  for await (const chunk of chunks) {
    batch.push(chunk);
    size += chunk.length;
    if (size >= 65_536) await flush();
  }
  await flush();
}

/** The files as one .zip, produced as they are read. */
export async function* zipped(files: readonly ExportFile[]): AsyncGenerator<Uint8Array> {
  const ready: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error) failure = error;
    else ready.push(data);
  });
  const encoder = new TextEncoder();
  for (const file of files) {
    const entry = new ZipDeflate(file.name, { level: 6 });
    zip.add(entry);
    // Lines gathered into pieces of about 64 KB: deflating them one by one cost a call each.
    let pending = '';
    for await (const chunk of file.chunks) {
      pending += chunk;
      if (pending.length < 65_536) continue;
      entry.push(encoder.encode(pending));
      pending = '';
      if (failure) throw failure;
      yield* ready.splice(0);
    }
    entry.push(encoder.encode(pending), true);
    if (failure) throw failure;
    yield* ready.splice(0);
  }
  zip.end();
  if (failure) throw failure;
  yield* ready.splice(0);
}
