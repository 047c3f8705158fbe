import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { notFound } from '../../shared/errors.js';
import { missingMovieIds } from './movies.repository.js';

/** 404 naming every unknown id, so a batch that names one changes nothing. */
export async function assertMoviesExist(db: Kysely<Database>, movieIds: readonly number[]): Promise<void> {
  const missing = await missingMovieIds(db, movieIds);
  if (missing.length > 0) {
    throw notFound(
      'MovieNotFound',
      `no movie with serviceId ${missing.join(', ')}${missing.length > 1 ? ' (none of the batch was applied)' : ''}`,
    );
  }
}
