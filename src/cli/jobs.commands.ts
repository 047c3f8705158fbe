import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { JobRow } from '../db/schema.js';
import type { JobView } from '../jobs/queue.js';
import type { JobRunner } from '../jobs/runner.js';
import { type CliIo, plural, withDatabase } from './context.js';

interface ListOptions {
  json: boolean;
  limit: string;
}

/** `cinelog jobs ...`: the background job queue. */
export function registerJobCommands(program: Command, io: CliIo): void {
  const jobs = program.command('jobs').description('the background job queue');

  jobs
    .command('list')
    .description('list the most recent jobs with their state and progress, newest first')
    .option('--json', 'print one JSON array instead of a table', false)
    .option('--limit <count>', 'how many jobs', '50')
    .action((options: ListOptions) =>
      withDatabase(io, async ({ jobs: background }) => {
        const limit = Number(options.limit);
        const list = await background.queue.recent(Number.isInteger(limit) && limit > 0 ? limit : 50);
        io.stdout.write(options.json ? `${JSON.stringify(list)}\n` : formatTable(list));
        io.stderr.write(`${plural(list.length, 'job')}\n`);
      }),
    );

  jobs
    .command('run')
    .description(
      'run the jobs that are due now until none is left, in the foreground (progress on stderr); ' +
        'prints the counts as JSON on the last line',
    )
    .action(() =>
      withDatabase(io, async ({ jobs: background }) => {
        const counts = await runInForeground(background.runner, io);
        io.stdout.write(`${JSON.stringify(counts)}\n`);
      }),
    );
}

/**
 * Runs due jobs (of `kinds`, or every kind) until none is left, reporting each on stderr: a progress
 * bar where stderr is a terminal, one line per job otherwise.
 */
export async function runInForeground(
  runner: JobRunner,
  io: CliIo,
  kinds?: readonly string[],
): Promise<{ done: number; failed: number }> {
  const tty = io.stderr === process.stderr && process.stderr.isTTY === true;
  let bar: SingleBar | null = null;
  const counts = await runner.runUntilEmpty({
    ...(kinds && { kinds }),
    onJob: (job: JobRow) => {
      if (tty) {
        bar = new SingleBar({
          format: `${job.kind} #${job.id} [{bar}] {value}/{total}`,
          hideCursor: true,
          clearOnComplete: true,
        });
        bar.start(1, 0);
      }
    },
    onProgress: (done, total) => {
      if (!bar) return;
      bar.setTotal(total ?? Math.max(done, 1));
      bar.update(done);
    },
    onFinish: (job, outcome) => {
      (bar as SingleBar | null)?.stop();
      bar = null;
      const how = outcome.ok ? 'done' : 'failed';
      io.stderr.write(`job #${job.id} ${job.kind}: ${how}${outcome.message ? `: ${outcome.message}` : ''}\n`);
    },
  });
  io.stderr.write(`${plural(counts.done, 'job')} done, ${counts.failed} failed\n`);
  return counts;
}

function formatTable(list: readonly JobView[]): string {
  const header = ['id', 'kind', 'state', 'attempts', 'progress', 'when', 'outcome'];
  const rows = list.map((job) => [
    String(job.id),
    job.kind,
    job.state,
    `${job.attempts}/${job.maxAttempts}`,
    job.progress ? `${job.progress.done}/${job.progress.total ?? '?'}` : '-',
    job.finishedAt ?? (job.state === 'queued' ? `at ${job.runAt}` : (job.startedAt ?? job.createdAt)),
    (job.error ?? job.result ?? '').replace(/\s+/g, ' ').slice(0, 80),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `${cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()}\n`;
  return [line(header), ...rows.map(line)].join('');
}
