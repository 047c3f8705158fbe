import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobState } from '../../db/schema.js';
import type { JobQueue, JobView } from '../../jobs/queue.js';
import { badRequest } from '../../shared/errors.js';
import type { User } from '../users/users.service.js';
import type { ImportSummary, ImportsService } from './import.service.js';
import type { ImportFormat } from './import.types.js';
import { filesOfUpload } from './import-files.js';
import { IMPORT_JOB, type ImportJobPayload } from './imports.jobs.js';

/** An uploaded export: the API's body, the web app's file field. */
export interface ImportUpload {
  format: ImportFormat;
  /** The file's name as sent; only its safe characters are kept (Letterboxd's `diary.csv` matters). */
  name?: string | undefined;
  bytes: Buffer;
  dryRun: boolean;
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
   * Checks the file (a bad one throws an ImportFileError, a 400, and nothing is stored or queued),
   * stores it and queues its import; the job's id.
   */
  queue(owner: User, upload: ImportUpload): Promise<number>;
  /** The owner's import job; null when there is none or it is another user's. */
  find(owner: User, jobId: number): Promise<ImportJobView | null>;
  /**
   * The owner's latest imports, newest first: among the instance's last 500 import jobs (finished
   * jobs are kept 30 days), enough for a self-hosted instance's users.
   */
  recent(owner: User, limit: number): Promise<ImportJobView[]>;
}

/** The import jobs looked through for a user's latest ones. */
const RECENT_JOBS_SCANNED = 500;

function jobView(job: JobView, payload: ImportJobPayload): ImportJobView {
  const summary = job.state === 'done' && job.result ? JSON.parse(job.result) : null;
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
  return format === 'trakt' || format === 'cinelog' ? 'upload.json' : 'upload.csv';
}

export function createImportUploads(deps: {
  imports: ImportsService;
  queue: JobQueue;
  importsDir: string;
}): ImportUploads {
  const { imports, queue, importsDir } = deps;
  return {
    async queue(owner, upload) {
      if (upload.bytes.length === 0) throw badRequest('InvalidRequestBody', 'the file is empty');
      const name = uploadName(upload.format, upload.name);
      // Checked before anything is stored: a bad file is a 400 that leaves no trace.
      imports.check(upload.format, owner, filesOfUpload(name, upload.bytes));
      const dir = join(importsDir, randomUUID());
      await mkdir(dir, { recursive: true });
      try {
        await writeFile(join(dir, name), upload.bytes);
        const payload: ImportJobPayload = {
          userId: owner.id,
          userName: owner.name,
          format: upload.format,
          dir,
          dryRun: upload.dryRun,
        };
        return (await queue.enqueue(IMPORT_JOB, payload, { maxAttempts: 3 }))!;
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    },

    async find(owner, jobId) {
      const job = await queue.find(jobId, IMPORT_JOB);
      const payload = job?.payload as ImportJobPayload | undefined;
      if (!job || payload?.userId !== owner.id) return null;
      return jobView(job, payload);
    },

    async recent(owner, limit) {
      const jobs = await queue.recentWithPayload(IMPORT_JOB, RECENT_JOBS_SCANNED);
      return jobs
        .filter((job) => (job.payload as ImportJobPayload | null)?.userId === owner.id)
        .slice(0, limit)
        .map((job) => jobView(job, job.payload as ImportJobPayload));
    },
  };
}
