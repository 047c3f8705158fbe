import type { Command } from 'commander';
import { queueRefresh, queueRefreshOfAll, REFRESH_MOVIE } from '../modules/movies/movies.jobs.js';
import { type CliIo, CommandError, UsageError, withDatabase } from './context.js';
import { runInForeground } from './jobs.commands.js';

interface RefreshOptions {
  all?: boolean;
  id?: string;
  queueOnly?: boolean;
}

/** `cinelog movies ...`: the catalogue. */
export function registerMovieCommands(program: Command, io: CliIo): void {
  const movies = program.command('movies').description('the movie catalogue');

  movies
    .command('refresh')
    .description(
      "queue a refresh of movies' TMDB data, then run those refreshes at once (unless --queue-only); " +
        'prints how many were queued',
    )
    .option('--all', 'every movie with a TMDB id')
    .option('--id <serviceId>', 'one movie, by its service id')
    .option('--queue-only', 'leave the refreshes to a running server (its background jobs)')
    .action((options: RefreshOptions) => {
      if (Boolean(options.all) === (options.id !== undefined))
        throw new UsageError('give either --all or --id');
      const id = Number(options.id);
      if (options.id !== undefined && (!/^\d+$/.test(options.id) || id < 1)) {
        throw new UsageError(`--id must be a movie's service id, a positive integer (got "${options.id}")`);
      }
      return withDatabase(io, async ({ db, config, jobs, movies: catalogue }) => {
        if (!config.tmdb.apiKey) {
          throw new CommandError('TMDB_API_KEY is not set: refreshing needs TMDB');
        }
        let queued: number;
        if (options.all) {
          queued = await queueRefreshOfAll(db, jobs.queue);
        } else {
          if (!(await catalogue.movieDetails(id))) throw new CommandError(`no movie with service id ${id}`);
          queued = (await queueRefresh(jobs.queue, id)) === null ? 0 : 1;
        }
        io.stderr.write(
          `queued ${queued} refresh${queued === 1 ? '' : 'es'} (a refresh already pending counts once)\n`,
        );
        if (!options.queueOnly) await runInForeground(jobs.runner, io, [REFRESH_MOVIE]);
        io.stdout.write(`${queued}\n`);
      });
    });
}
