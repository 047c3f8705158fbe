import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql.js';
import { offsetOf, type PageRequest } from '../../shared/pagination.js';
import type { SortOrder } from '../../shared/schemas.js';

type Db = Kysely<Database>;

export interface HistoryFilter {
  search?: string | undefined;
  sortOrder: SortOrder;
}

/** One page of a user's dated watch entries (by date, then position), and the total count. */
export async function listHistory(db: Db, userId: number, filter: HistoryFilter, page: PageRequest) {
  let base = db
    .selectFrom('watch_dates as w')
    .where('w.user_id', '=', userId)
    .where('w.watched_at', 'is not', null);
  if (filter.search) {
    const search = filter.search;
    base = base
      .innerJoin('movies as m', 'm.id', 'w.movie_id')
      .where((eb) => eb.or([containsText('m.title', search), containsText('m.original_title', search)]));
  }
  const [rows, count] = await Promise.all([
    base
      .select(['w.movie_id', 'w.watched_at', 'w.plays', 'w.comment', 'w.position', 'w.rating'])
      .orderBy('w.watched_at', filter.sortOrder)
      .orderBy('w.position', filter.sortOrder)
      .orderBy('w.id', filter.sortOrder)
      .limit(page.limit)
      .offset(offsetOf(page))
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows as {
      movie_id: number;
      watched_at: string;
      plays: number;
      comment: string | null;
      position: number;
      rating: number | null;
    }[],
    total: Number(count.total),
  };
}
