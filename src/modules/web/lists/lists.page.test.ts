import { describe, expect, it } from 'vitest';
import { aMovie, aPage, aUser } from '../../../../test/page-fixtures.js';
import type { ListSummary, ListWithMovies } from '../../library/library.service.js';
import { likesPage, listPage, listsPage, NEW_LIST, publicListPage } from './lists.page.js';

// The likes and lists pages' builders: domain objects in, the templates' data out; no database, no HTTP.

const summary = (overrides: Partial<ListSummary> = {}): ListSummary => ({
  id: 3,
  name: 'Sunday films',
  description: null,
  ranked: false,
  visibility: 'private',
  movieCount: 0,
  createdAt: '2024-06-01T10:00:00.000Z',
  updatedAt: '2024-06-02T09:30:00.000Z',
  ...overrides,
});

const withMovies = (overrides: Partial<ListSummary>, titles: string[], maxPage = 1): ListWithMovies => ({
  ...summary({ movieCount: titles.length, ...overrides }),
  movies: aPage(
    titles.map((title, i) => ({
      movie: aMovie({ id: 10 + i, title }),
      position: i + 1,
      note: i === 0 ? 'Start here' : null,
      addedAt: '2024-06-02',
    })),
    maxPage,
  ),
});

describe('the likes and lists pages', () => {
  it('likes: posters with the day liked, in pages', () => {
    const page = likesPage(
      'stars',
      2,
      aPage([{ movie: aMovie({ id: 4, title: 'Alien' }), likedAt: '2024-06-16' }], 3),
    );
    expect(page.title).toBe('Likes');
    expect(page.cards).toMatchObject([
      { id: 4, title: 'Alien', href: '/movies/4-alien', meta: 'Liked 16 Jun 2024' },
    ]);
    expect(page.pagination).toEqual({ page: 2, pages: 3, previous: '/likes', next: '/likes?page=3' });
    expect(likesPage('stars', 1, aPage([])).cards).toEqual([]);
  });

  it('lists: each with its count, ranking and visibility; the new-list form, or what a refused one sent', () => {
    const page = listsPage([
      summary({ movieCount: 1, ranked: true, visibility: 'public', description: 'Mine' }),
      summary({ id: 4, name: 'Later', movieCount: 1200, visibility: 'users' }),
    ]);
    expect(page.lists).toEqual([
      {
        href: '/lists/3',
        name: 'Sunday films',
        description: 'Mine',
        count: '1 movie',
        ranked: true,
        visibility: 'Public',
      },
      {
        href: '/lists/4',
        name: 'Later',
        description: null,
        count: '1,200 movies',
        ranked: false,
        visibility: 'Users of this server',
      },
    ]);
    expect(page.error).toBeNull();
    expect(page.form.values).toEqual(NEW_LIST);
    expect(page.form).toMatchObject({ maxName: 100, maxDescription: 10_000 });
    expect(page.form.visibilities.map((v) => [v.value, v.checked])).toEqual([
      ['private', true],
      ['users', false],
      ['public', false],
    ]);
    const refused = listsPage(
      [],
      { name: '', description: 'Kept', ranked: true, visibility: 'users' },
      'No name.',
    );
    expect(refused.error).toBe('No name.');
    expect(refused.form.values.description).toBe('Kept');
    expect(refused.form.visibilities.find((v) => v.checked)?.value).toBe('users');
  });

  it("a list: its movies in order with their notes, where each can move, and the edit form's values", () => {
    const page = listPage(
      'stars',
      withMovies({ ranked: true, description: 'Dark' }, ['Alpha', 'Bravo', 'Charlie']),
      1,
    );
    expect(page.title).toBe('Sunday films');
    expect(page.list).toEqual({
      id: 3,
      href: '/lists/3',
      name: 'Sunday films',
      description: 'Dark',
      ranked: true,
      visibility: 'Private',
      count: '3 movies',
    });
    expect(page.movies.map((m) => [m.title, m.position, m.canMoveUp, m.canMoveDown, m.note])).toEqual([
      ['Alpha', 1, false, true, 'Start here'],
      ['Bravo', 2, true, true, null],
      ['Charlie', 3, true, false, null],
    ]);
    expect(page.movies[0]?.card).toMatchObject({ id: 10, meta: 'Added 2 Jun 2024' });
    expect(page.form.values).toEqual({
      name: 'Sunday films',
      description: 'Dark',
      ranked: true,
      visibility: 'private',
    });
    expect(page.next).toBe('/lists/3');
    expect(page.maxNote).toBe(2000);
    expect(page.error).toBeNull();
    // Page 2 of a long list: the forms come back to it; the last of the whole list cannot move down.
    const second = listPage('stars', { ...withMovies({}, ['Zulu'], 2), movieCount: 25 }, 2);
    expect(second.next).toBe('/lists/3?page=2');
    expect(second.pagination).toMatchObject({ previous: '/lists/3', next: null });
    // A refused edit shows what was sent and why.
    const form = { name: '', description: '', ranked: false, visibility: 'public' as const };
    expect(listPage('stars', withMovies({}, []), 1, { form, error: 'No name.' })).toMatchObject({
      error: 'No name.',
      title: 'Sunday films',
      form: { values: form },
    });
  });

  it('a public list: read-only, with links for a signed-in reader only', () => {
    const owner = aUser({ name: 'ann lee' });
    const list = withMovies({ ranked: true }, ['Alpha']);
    const stranger = publicListPage(owner, list, 1, false);
    expect(stranger).toMatchObject({
      title: 'Sunday films · ann lee',
      owner: { name: 'ann lee', href: '/u/ann%20lee' },
      list: { ranked: true, count: '1 movie' },
    });
    expect(stranger.movies).toEqual([
      { position: 1, title: 'Alpha', year: '1995', href: null, poster: null, note: 'Start here' },
    ]);
    expect(publicListPage(owner, list, 1, true).movies[0]?.href).toBe('/movies/10-alpha');
  });
});
