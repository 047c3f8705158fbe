import type { Page } from '../../../shared/pagination.js';
import {
  LIST_VISIBILITIES,
  type ListVisibility,
  MAX_LIST_DESCRIPTION_LENGTH,
  MAX_LIST_NAME_LENGTH,
  MAX_LIST_NOTE_LENGTH,
} from '../../library/library.rules.js';
import type { LikeEntry, ListSummary, ListWithMovies } from '../../library/library.service.js';
import type { RatingScale, User } from '../../users/users.service.js';
import { formatDay, movieHref, yearOf } from '../shell/format.js';
import { movieCard, pageImageUrl, paginationView } from '../shell/view-models.js';

// The likes and the lists pages (issue 30), from the library's likes and lists. Pure: domain objects
// in, the templates' data out.

/** What each visibility means, in the words of the forms and the pages. */
const VISIBILITY_LABELS: Record<ListVisibility, string> = {
  private: 'Private: only you',
  users: 'Users: anyone signed in here',
  public: 'Public: also on your public profile',
};
const VISIBILITY_SHORT: Record<ListVisibility, string> = {
  private: 'Private',
  users: 'Users of this server',
  public: 'Public',
};

/** A list's fields as a form shows them: the stored list's, or what a refused form sent. */
export interface ListFormValues {
  name: string;
  description: string;
  ranked: boolean;
  visibility: ListVisibility;
}

export const NEW_LIST: ListFormValues = { name: '', description: '', ranked: false, visibility: 'private' };

/** The form's fields, their limits and the visibility choices with the one chosen. */
function listForm(values: ListFormValues) {
  return {
    values,
    maxName: MAX_LIST_NAME_LENGTH,
    maxDescription: MAX_LIST_DESCRIPTION_LENGTH,
    visibilities: LIST_VISIBILITIES.map((value) => ({
      value,
      label: VISIBILITY_LABELS[value],
      checked: value === values.visibility,
    })),
  };
}

const countOf = (count: number) => `${count.toLocaleString('en')} ${count === 1 ? 'movie' : 'movies'}`;

/** `/likes`: the liked movies as posters, newest like first, in pages. */
export function likesPage(scale: RatingScale, page: number, list: Page<LikeEntry>) {
  return {
    title: 'Likes',
    cards: list.items.map((entry) =>
      movieCard(entry.movie, { scale, meta: `Liked ${formatDay(entry.likedAt)}`, liked: true }),
    ),
    pagination: paginationView('/likes', {}, page, list.maxPage),
  };
}

/**
 * `/lists`: the user's lists, most recently changed first, with their counts, and the form for a new
 * one (`form`: what a refused form sent, with `error`, its reason).
 */
export function listsPage(
  lists: readonly ListSummary[],
  form: ListFormValues = NEW_LIST,
  error: string | null = null,
) {
  return {
    title: 'Lists',
    error,
    lists: lists.map((list) => ({
      href: `/lists/${list.id}`,
      name: list.name,
      description: list.description,
      count: countOf(list.movieCount),
      ranked: list.ranked,
      visibility: VISIBILITY_SHORT[list.visibility],
    })),
    form: listForm(form),
  };
}

/**
 * `/lists/{id}`: one of the user's lists with a page of its movies in order (the rank shown when the
 * list is ranked), each with "Move up" and "Move down" where they apply, and the edit form
 * (`form`: what a refused edit sent, with `error`, its reason; the stored list's otherwise). Each
 * card has a heart (`liked`: the movies of the page the user likes).
 */
export function listPage(
  scale: RatingScale,
  list: ListWithMovies,
  page: number,
  refused: { form: ListFormValues; error: string } | null = null,
  liked: ReadonlySet<number> = new Set(),
) {
  const href = `/lists/${list.id}`;
  const here = page > 1 ? `${href}?page=${page}` : href;
  const stored: ListFormValues = {
    name: list.name,
    description: list.description ?? '',
    ranked: list.ranked,
    visibility: list.visibility,
  };
  return {
    title: list.name,
    error: refused?.error ?? null,
    list: {
      id: list.id,
      href,
      name: list.name,
      description: list.description,
      ranked: list.ranked,
      visibility: VISIBILITY_SHORT[list.visibility],
      count: countOf(list.movieCount),
    },
    movies: list.movies.items.map((entry) => ({
      card: movieCard(entry.movie, { scale, meta: `Added ${formatDay(entry.addedAt)}`, liked }),
      id: entry.movie.ids.service,
      title: entry.movie.title,
      position: entry.position,
      note: entry.note,
      canMoveUp: entry.position > 1,
      canMoveDown: entry.position < list.movieCount,
    })),
    pagination: paginationView(href, {}, page, list.movies.maxPage),
    form: listForm(refused?.form ?? stored),
    maxNote: MAX_LIST_NOTE_LENGTH,
    next: here,
  };
}

/**
 * `/u/{name}/lists/{id}`: a public list, read-only, in order. `linked`: the reader is signed in, so the
 * titles link to the movie pages (a stranger gets the titles alone, as on the public profile).
 */
export function publicListPage(owner: User, list: ListWithMovies, page: number, linked: boolean) {
  return {
    title: `${list.name} · ${owner.name}`,
    owner: { name: owner.name, href: `/u/${encodeURIComponent(owner.name)}` },
    list: {
      name: list.name,
      description: list.description,
      ranked: list.ranked,
      count: countOf(list.movieCount),
    },
    movies: list.movies.items.map((entry) => ({
      position: entry.position,
      title: entry.movie.title,
      year: yearOf(entry.movie.releaseDate),
      href: linked ? movieHref(entry.movie.ids.service, entry.movie.title) : null,
      poster: pageImageUrl(entry.movie.posterPath),
      note: entry.note,
    })),
    pagination: paginationView(
      `/u/${encodeURIComponent(owner.name)}/lists/${list.id}`,
      {},
      page,
      list.movies.maxPage,
    ),
  };
}
