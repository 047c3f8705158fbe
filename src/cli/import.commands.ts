import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import { Argument, type Command } from 'commander';
import { writeChunks, zipped } from '../modules/exports/export.service.js';
import { EXPORT_FORMATS, type ExportFormat } from '../modules/exports/export.types.js';
import type { ImportSummary } from '../modules/imports/import.service.js';
import { IMPORT_FORMATS, type ImportFormat } from '../modules/imports/import.types.js';
import { type CliIo, type OutputStream, plural, requireUser, withDatabase } from './context.js';
import { mandatory } from './options.js';

/** Unmatched and guessed rows listed on stderr; the rest are counted. */
const ROWS_SHOWN = 50;

/** `cinelog import <format>` and `cinelog export`: a user's history in and out. */
export function registerImportExportCommands(program: Command, io: CliIo): void {
  program
    .command('import')
    .description(
      "import a user's plays, watchlist and ratings from another tracker's export (a file, a directory or a .zip); " +
        'running it again adds nothing; prints the counts as JSON on the last line',
    )
    .addArgument(new Argument('<format>', 'the export it is').choices(IMPORT_FORMATS))
    .argument('<path>', 'the export: a file, a directory or a .zip')
    .addOption(mandatory('--user <name>', 'whose library'))
    .option('--dry-run', 'only report what would be added, already there or unmatched; change nothing', false)
    .action((format: ImportFormat, path: string, options: { user: string; dryRun: boolean }) =>
      withDatabase(io, async ({ users, imports }) => {
        const user = await requireUser(users, options.user);
        const progress = progressBar(io);
        const summary = await imports
          .importPath(format, user, path, { dryRun: options.dryRun, onProgress: progress.update })
          .finally(progress.stop);
        io.stderr.write(describe(summary));
        const { added, existing, unmatched } = summary;
        io.stdout.write(`${JSON.stringify({ added, existing, unmatched })}\n`);
      }),
    );

  program
    .command('export')
    .description(
      "export everything of a user's library: json (cinelog's own, re-importable), movary (three CSVs) or " +
        'letterboxd (the files of its own export, zipped); to stdout, or to --out',
    )
    .addOption(mandatory('--user <name>', 'whose library'))
    .addOption(mandatory('--format <format>', 'json, movary or letterboxd').choices(EXPORT_FORMATS))
    .option(
      '--out <path>',
      'a file; for movary and letterboxd a directory, or a file ending in .zip (default: a .zip on stdout)',
    )
    .action((options: { user: string; format: ExportFormat; out?: string }) =>
      withDatabase(io, async ({ users, exports }) => {
        const user = await requireUser(users, options.user);
        const files = await exports.files(options.format, user);
        const many = files.length > 1;
        if (options.out === undefined) {
          const stdout = toWritable(io.stdout);
          await writeChunks(many ? zipped(files) : files[0]!.chunks, stdout);
        } else if (many && !options.out.toLowerCase().endsWith('.zip')) {
          await mkdir(options.out, { recursive: true });
          for (const file of files) {
            await mkdir(dirname(join(options.out, file.name)), { recursive: true });
            await writeFile(join(options.out, file.name), file.chunks);
          }
          io.stderr.write(`wrote ${files.map((f) => f.name).join(', ')} to ${options.out}\n`);
          io.stdout.write(`${options.out}\n`);
        } else {
          await writeFile(options.out, many ? zipped(files) : files[0]!.chunks);
          io.stderr.write(`wrote the ${options.format} export of "${user.name}" to ${options.out}\n`);
          io.stdout.write(`${options.out}\n`);
        }
      }),
    );
}

async function writeFile(path: string, chunks: AsyncIterable<string | Uint8Array>) {
  const out = createWriteStream(path);
  const opened = new Promise<void>((resolve, reject) => {
    out.once('open', () => resolve());
    out.once('error', reject);
  });
  await opened.catch((error: Error) => {
    throw new Error(`cannot write ${path}: ${error.message}`);
  });
  await writeChunks(chunks, out);
  out.end();
  await finished(out);
}

/** The CLI's stdout as a stream: process.stdout itself, or a test's collector. */
function toWritable(stdout: OutputStream): Writable {
  if (stdout === process.stdout) return process.stdout;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      stdout.write(chunk.toString('utf8'));
      done();
    },
  });
}

export function describe(summary: ImportSummary): string {
  const verb = summary.dryRun ? 'would add' : 'added';
  const entries = (n: number) => plural(n, 'watchlist entry').replace('entrys', 'entries');
  const lines = [
    `${summary.dryRun ? 'dry run, nothing changed: ' : ''}${verb} ${plural(summary.plays.added, 'play')}, ` +
      `${entries(summary.watchlist.added)}, ${plural(summary.ratings.added, 'rating')}`,
    `already there: ${plural(summary.plays.existing, 'play')}, ` +
      `${entries(summary.watchlist.existing)}, ${plural(summary.ratings.existing, 'rating')}`,
    // Diary entries' own values, likes and lists: said when the file had any.
    ...[
      ['diary entries described (rating, rewatch, tags)', summary.diary],
      ['likes', summary.likes],
      ['lists', summary.lists],
    ].flatMap(([what, count]) =>
      typeof count === 'object' && count.added + count.existing > 0
        ? [`${what}: ${verb} ${count.added}, already there ${count.existing}`]
        : [],
    ),
    `unmatched: ${plural(summary.unmatched, 'row')}${summary.unmatched > 0 ? ' (add them by hand: search and pick in the web app)' : ''}`,
    ...summary.unmatchedRows
      .slice(0, ROWS_SHOWN)
      .map((row) =>
        row.kind === 'unreadable'
          ? `  ${row.file} line ${row.line}: ${row.reason}`
          : `  ${row.file} line ${row.line}: ${row.kind} of ${row.title === null ? '(no title)' : `"${row.title}"`}` +
            `${row.year === null ? '' : ` (${row.year})`}${row.ids ? ` [${row.ids}]` : ''}`,
      ),
    ...(summary.unmatched > ROWS_SHOWN ? [`  … and ${summary.unmatched - ROWS_SHOWN} more`] : []),
    ...(summary.skipped.length > 0
      ? [
          `skipped, cinelog does not keep these yet: ${summary.skipped.map((s) => `${s.count.toLocaleString('en')} ${s.what}`).join(', ')}`,
        ]
      : []),
    ...(summary.guessed > 0
      ? [
          `matched by a guess, check them: ${plural(summary.guessed, 'row')}`,
          ...summary.guesses
            .slice(0, ROWS_SHOWN)
            .map(
              (row) =>
                `  ${row.file} line ${row.line}: "${row.title ?? ''}"${row.year === null ? '' : ` (${row.year})`} → ` +
                `"${row.movie.title}"${row.movie.year === null ? '' : ` (${row.movie.year})`}, ${row.why}`,
            ),
          ...(summary.guessed > ROWS_SHOWN ? [`  … and ${summary.guessed - ROWS_SHOWN} more`] : []),
        ]
      : []),
    ...(summary.settingsApplied ? ['profile settings applied from the export'] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** A bar on stderr while movies are looked up, where stderr is a terminal; nothing in a log. */
export function progressBar(io: CliIo, what = 'matching movies') {
  const tty = io.stderr === process.stderr && process.stderr.isTTY === true;
  let bar: SingleBar | null = null;
  return {
    update(done: number, total: number) {
      if (!tty || total === 0) return;
      if (!bar) {
        bar = new SingleBar({
          format: `${what} [{bar}] {value}/{total}`,
          hideCursor: true,
          clearOnComplete: true,
        });
        bar.start(total, 0);
      }
      bar.update(done);
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
