import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { JobState } from '../../db/schema.js';
import type { JobQueue, JobView } from '../../jobs/queue.js';
import { AppError, badRequest } from '../../shared/errors.js';
import type { User } from '../users/users.service.js';
import type { ImportSummary, ImportsService } from './import.service.js';
import { IMPORT_JOB, type ImportFormat, type ImportJobPayload } from './import.types.js';
import { UNNAMED_CSV, UNNAMED_JSON } from './import-files.js';

/**
 * The largest upload (the command line reads up to 100 MB; a zip of up to 100 MB unpacked): it is
 * streamed to disk, then read in a worker thread; 32 MB holds years of any tracker's history.
 */
export const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;

/** A user's imports that may wait or run at once; another upload is refused (429) until one is done. */
export const MAX_PENDING_IMPORTS = 3;

/** The ending of a folder where an upload is being received, before it is checked and handed to its job. */
const INCOMING = '.incoming';

/** An uploaded export, received to disk (`receive`). */
export interface ImportUpload {
  format: ImportFormat;
  file: ReceivedUpload;
  dryRun: boolean;
}

/** A file received in a folder of its own under IMPORTS_DIR; `discard()` removes it (after a refusal). */
export interface ReceivedUpload {
  dir: string;
  name: string;
  bytes: number;
  discard(): Promise<void>;
}

/** An import job as its owner sees it (the API's `GET …/imports/{jobId}`, the web app's status page). */
export interface ImportJobView {
  jobId: number;
  state: JobState;
  progress: { done: number; total: number | null } | null;
  dryRun: boolean;
  format: ImportFormat;
  createdAt: string;
  summary: (ImportSummary & { error?: string }) | null;
  error: string | null;
}

/** Uploads the API and the web app take: checked at once, kept under IMPORTS_DIR, imported by a job. */
export interface ImportUploads {
  /**
   * Refuses (429) a user who has MAX_PENDING_IMPORTS imports waiting or running, or an upload being
   * checked: asked before an upload's body is read.
   */
  assertRoom(owner: User): Promise<void>;
  /**
   * Streams an upload's bytes to a file of its own under IMPORTS_DIR (at most MAX_UPLOAD_BYTES: past
   * that, a 413 and nothing kept). `name` is the file's name as sent; only its safe characters are kept.
   */
  receive(format: ImportFormat, name: string | undefined, body: Readable): Promise<ReceivedUpload>;
  /**
   * Checks the received file (a bad one throws an ImportFileError, a 400, and it is removed), and
   * queues its import; the job's id.
   */
  queue(owner: User, upload: ImportUpload): Promise<number>;
  /** The owner's import job; null when there is none or it is another user's. */
  find(owner: User, jobId: number): Promise<ImportJobView | null>;
  /** The owner's latest imports, newest first (finished jobs are kept 30 days). */
  recent(owner: User, limit: number): Promise<ImportJobView[]>;
  /** Removes uploads no job waits for any more (left by a crash): older than an hour, under IMPORTS_DIR. */
  sweep(): Promise<number>;
}

function jobView(job: JobView, payload: ImportJobPayload): ImportJobView {
  let summary: ImportJobView['summary'] = null;
  if (job.state === 'done' && job.result) {
    try {
      summary = JSON.parse(job.result);
    } catch {
      // A result cut short by an earlier version (2,000 characters): read as a failed import.
      summary = { error: 'the result of this import was lost: run it again' } as ImportJobView['summary'];
    }
  }
  return {
    jobId: job.id,
    state: job.state,
    progress: job.progress,
    dryRun: payload.dryRun,
    format: payload.format,
    createdAt: job.createdAt,
    summary,
    error: job.state === 'done' ? null : job.error,
  };
}

/** The name an upload is stored and parsed under: its own safe characters, else one for the format. */
export function uploadName(format: ImportFormat, name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).at(-1) ?? '';
  const safe = base
    .replace(/[^A-Za-z0-9._ -]/g, '_')
    .replace(/^[._ -]+/, '')
    .slice(0, 100);
  if (safe !== '') return safe;
  return format === 'trakt' || format === 'cinelog' ? UNNAMED_JSON : UNNAMED_CSV;
}

const tooLarge = () =>
  new AppError(413, 'PayloadTooLarge', `the file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`);

export function createImportUploads(deps: {
  imports: ImportsService;
  queue: JobQueue;
  importsDir: string;
}): ImportUploads {
  const { imports, queue, importsDir } = deps;
  /** Users with an upload being received or checked now. */
  const busy = new Set<number>();

  const uploads: ImportUploads = {
    async assertRoom(owner) {
      const pending = await queue.pendingOf(IMPORT_JOB, owner.id);
      if (busy.has(owner.id) || pending >= MAX_PENDING_IMPORTS) {
        throw new AppError(
          429,
          'TooManyRequests',
          busy.has(owner.id)
            ? 'another upload of yours is being checked: wait for it, then try again'
            : `you have ${pending} imports waiting or running: wait for one to finish, then try again`,
        );
      }
    },

    async receive(format, name, body) {
      // Listened to from the start: a body that breaks off while the folder is made is no error
      // left unhandled (which would end the process), but a 400 here.
      let broke: Error | null = null;
      const onEarlyError = (error: Error) => {
        broke ??= error;
      };
      body.on('error', onEarlyError);
      const dir = join(importsDir, `${randomUUID()}${INCOMING}`);
      const fileName = uploadName(format, name);
      await mkdir(dir, { recursive: true });
      const discard = () => rm(dir, { recursive: true, force: true });
      let bytes = 0;
      try {
        if (broke) throw broke;
        await pipeline(
          body,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              bytes += chunk.length;
              if (bytes > MAX_UPLOAD_BYTES) throw tooLarge();
              yield chunk;
            }
          },
          createWriteStream(join(dir, fileName)),
        );
      } catch (error) {
        await discard();
        if (error instanceof AppError) throw error;
        throw badRequest('InvalidRequestBody', `the upload broke off: ${(error as Error).message}`);
      } finally {
        body.off('error', onEarlyError);
      }
      return { dir, name: fileName, bytes, discard };
    },

    async queue(owner, upload) {
      const { file } = upload;
      try {
        if (file.bytes === 0) throw badRequest('InvalidRequestBody', 'the file is empty');
        await uploads.assertRoom(owner);
        busy.add(owner.id);
        try {
          // Checked before it is queued: a bad file is a 400 that leaves no trace.
          await imports.check(upload.format, owner, join(file.dir, file.name));
        } finally {
          busy.delete(owner.id);
        }
        const dir = join(importsDir, randomUUID());
        await rename(file.dir, dir);
        const payload: ImportJobPayload = {
          userId: owner.id,
          userName: owner.name,
          format: upload.format,
          dir,
          dryRun: upload.dryRun,
        };
        try {
          return (await queue.enqueue(IMPORT_JOB, payload, { maxAttempts: 3, userId: owner.id }))!;
        } catch (error) {
          await rm(dir, { recursive: true, force: true });
          throw error;
        }
      } finally {
        await file.discard();
      }
    },

    async find(owner, jobId) {
      const job = await queue.find(jobId, IMPORT_JOB);
      const payload = job?.payload as ImportJobPayload | undefined;
      if (!job || payload?.userId !== owner.id) return null;
      return jobView(job, payload);
    },

    async recent(owner, limit) {
      const jobs = await queue.recentWithPayload(IMPORT_JOB, limit, owner.id);
      return jobs.map((job) => jobView(job, job.payload as ImportJobPayload));
    },

    async sweep() {
      const waiting = new Set(
        (await queue.recentWithPayload(IMPORT_JOB, 10_000))
          .filter((job) => job.state === 'queued' || job.state === 'running')
          .map((job) => (job.payload as ImportJobPayload).dir),
      );
      const hourAgo = Date.now() - 3_600_000;
      let removed = 0;
      const entries = await readdir(importsDir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const path = join(importsDir, entry.name);
        if (!entry.isDirectory() || waiting.has(path)) continue;
        // A folder being received now, or queued a moment ago, is young.
        const info = await stat(path).catch(() => null);
        if (!info || info.mtimeMs > hourAgo) continue;
        await rm(path, { recursive: true, force: true });
        removed += 1;
      }
      return removed;
    },
  };
  return uploads;
}
