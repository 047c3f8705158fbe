import type { Command } from 'commander';
import { type CliIo, plural, withDatabase } from './context.js';

/** `cinelog migrate`: prints the names of the migrations it applied, one per line. */
export function registerMigrateCommand(program: Command, io: CliIo): void {
  program
    .command('migrate')
    .description('apply pending database migrations (the server also does this at start)')
    .action(() =>
      withDatabase(
        io,
        async ({ appliedMigrations }) => {
          for (const name of appliedMigrations) io.stdout.write(`${name}\n`);
          io.stderr.write(
            appliedMigrations.length > 0
              ? `applied ${plural(appliedMigrations.length, 'migration')}\n`
              : 'the database is up to date: no pending migrations\n',
          );
        },
        { announceMigrations: false },
      ),
    );
}
