import type { Page } from '../../../shared/pagination.js';
import type { DiaryEntry, HistoryEntry, ListSummary } from '../../library/library.service.js';
import type { Statistics } from '../../statistics/statistics.service.js';
import type { RatingScale, User } from '../../users/users.service.js';
import { formatDay, hoursOf, movieHref, yearOf } from '../shell/format.js';
import { pageImageUrl, paginationView, type RatingView, ratingView } from '../shell/view-models.js';

// The public profile (`/u/{name}`) and the entry the diary (`/history`, diary.page.ts) builds on,
// from the library's entries. Pure: domain objects in, the templates' data out.

/** One dated entry, as `_history-entries` and the public profile show it. */
export interface HistoryEntryView {
  movieId: number;
  /** The movie's page; null on a public profile seen by someone not signed in. */
  href: string | null;
  title: string;
  year: string;
  poster: string | null;
  /** YYYY-MM-DD, for `<time datetime>` and the delete form. */
  date: string;
  day: string;
  plays: number;
  comment: string | null;
  /** The entry's own rating (the diary's); null when the entry has none. */
  rating: RatingView | null;
}

/** An entry in the diary's owner's rating scale; `linked`: with its movie's page (pages are for signed-in users). */
export function historyEntryView(entry: HistoryEntry, scale: RatingScale, linked = true): HistoryEntryView {
  return {
    movieId: entry.movie.ids.service,
    href: linked ? movieHref(entry.movie.ids.service, entry.movie.title) : null,
    title: entry.movie.title,
    year: yearOf(entry.movie.releaseDate),
    poster: pageImageUrl(entry.movie.posterPath),
    date: entry.watchedAt,
    day: formatDay(entry.watchedAt),
    plays: entry.plays,
    comment: entry.comment,
    // The entry's own rating, as it was that day: never the movie's rating of today.
    rating: entry.rating === null ? null : ratingView(entry.rating, scale),
  };
}

/** A diary entry on the public profile: the history's entry with its rewatch mark and its tags (as text). */
export interface PublicEntryView extends HistoryEntryView {
  rewatch: boolean;
  tags: string[];
}

/**
 * `/u/{name}`: the owner's diary, read-only. The totals are the all-time statistics' (as on the
 * dashboard), this year's plays their year's; each year with a play links its year in review. Movie
 * pages are for signed-in users: `linked` is whether the viewer is one.
 */
export function publicProfilePage(
  owner: User,
  view: { year: number; page: number; linked: boolean },
  diary: Page<DiaryEntry>,
  stats: Statistics,
  lists: readonly ListSummary[] = [],
) {
  const { totals } = stats;
  const thisYear = stats.playsPerYear.find((entry) => entry.year === view.year);
  return {
    title: `${owner.name}'s movie diary`,
    owner: { name: owner.name },
    year: view.year,
    // Each year with a play has its year in review, shared as this page is.
    reviews: stats.playsPerYear
      .filter((entry) => entry.plays > 0)
      .map((entry) => ({
        year: entry.year,
        href: `/users/${encodeURIComponent(owner.name)}/year/${entry.year}`,
      }))
      .reverse(),
    allTime: { plays: totals.plays, movies: totals.movies, hours: hoursOf(totals.minutesWatched) },
    thisYear: { plays: thisYear?.plays ?? 0 },
    // The diary lists dated entries only. Tags are text here: a tag's link filters the viewer's own diary.
    entries: diary.items.map(
      (entry): PublicEntryView => ({
        ...historyEntryView({ ...entry, watchedAt: entry.watchedAt ?? '' }, owner.ratingScale, view.linked),
        rewatch: entry.rewatch,
        tags: entry.tags,
      }),
    ),
    pagination: paginationView(`/u/${encodeURIComponent(owner.name)}`, {}, view.page, diary.maxPage),
    // The lists anyone may read (issue 30), each on its read-only page /u/{name}/lists/{id}.
    lists: lists.map((list) => ({
      href: `/u/${encodeURIComponent(owner.name)}/lists/${list.id}`,
      name: list.name,
      description: list.description,
      count: `${list.movieCount.toLocaleString('en')} ${list.movieCount === 1 ? 'movie' : 'movies'}`,
    })),
  };
}
