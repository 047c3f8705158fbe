import type { Command } from 'commander';
import {
  type ImdbImportProgress,
  type ImdbImportSummary,
  importImdbRatingsFromFile,
} from '../modules/movies/imdb-ratings.service.js';
import { type CliIo, type OutputStream, plural, withDatabase } from './context.js';

/** `cinelog imdb ...`: IMDb's ratings dataset. */
export function registerImdbCommands(program: Command, io: CliIo): void {
  const imdb = program.command('imdb').description("IMDb's ratings of the movies cinelog knows");

  imdb
    .command('import')
    .description(
      "load IMDb's title.ratings.tsv.gz (or the unzipped .tsv) from a file into the movies cinelog knows; " +
        'prints the counts as JSON',
    )
    .argument('<path>', 'the dataset, as downloaded from https://datasets.imdbws.com/title.ratings.tsv.gz')
    .action((path: string) =>
      withDatabase(io, async ({ db, clock }) => {
        const progress = progressBar(io.stderr);
        const summary = await importImdbRatingsFromFile(path, {
          db,
          clock,
          onProgress: progress.update,
        }).finally(progress.end);
        io.stderr.write(`${describe(summary)}\n`);
        io.stdout.write(`${JSON.stringify(summary)}\n`);
      }),
    );
}

function describe({ lines, matched, updated, skipped }: ImdbImportSummary): string {
  const malformed = skipped > 0 ? `; skipped ${plural(skipped, 'malformed line')}` : '';
  return (
    `read ${plural(lines, 'rating')}: ${matched} of them for movies cinelog knows, ` +
    `${plural(updated, 'movie')} with a changed rating${malformed}`
  );
}

/** On a terminal, one line redrawn in place; nothing in a log, where the summary says it all. */
function progressBar(stderr: OutputStream) {
  const tty = (stderr as { isTTY?: unknown }).isTTY === true;
  const width = 30;
  let drawn = false;
  return {
    update({ done, total }: ImdbImportProgress): void {
      if (!tty || total === null || total === 0) return;
      const filled = Math.min(width, Math.floor((done / total) * width));
      const percent = Math.min(100, Math.floor((done / total) * 100));
      stderr.write(`\rreading [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}%`);
      drawn = true;
    },
    /** The bar's line ends before the summary or an error starts its own. */
    end(): void {
      if (drawn) stderr.write('\n');
      drawn = false;
    },
  };
}
