import { describe, expect, it } from 'vitest';
import { movieHref, ratingLabel, slugOf } from './format.js';
import { pageImageUrl, paginationView } from './view-models.js';

describe('page view models', () => {
  it("makes the image cache's absolute URLs relative and leaves TMDB's alone", () => {
    expect(pageImageUrl('http://localhost:8080/images/w342/abc.jpg')).toBe('/images/w342/abc.jpg');
    expect(pageImageUrl('https://tracker.example/images/w185/x.png')).toBe('/images/w185/x.png');
    expect(pageImageUrl('https://image.tmdb.org/t/p/w342/abc.jpg')).toBe(
      'https://image.tmdb.org/t/p/w342/abc.jpg',
    );
    expect(pageImageUrl(null)).toBeNull();
  });

  it('builds readable movie addresses', () => {
    expect(slugOf('Spirited Away')).toBe('spirited-away');
    expect(slugOf('Amélie')).toBe('amelie');
    expect(slugOf('千と千尋の神隠し')).toBe('千と千尋の神隠し');
    expect(slugOf('!!!')).toBe('');
    expect(movieHref(12, 'Spirited Away')).toBe('/movies/12-spirited-away');
    expect(movieHref(12, '???')).toBe('/movies/12');
  });

  it('says a rating in the user scale', () => {
    expect(ratingLabel(7, 'stars')).toBe('3½ stars');
    expect(ratingLabel(2, 'stars')).toBe('1 star');
    expect(ratingLabel(1, 'stars')).toBe('half a star');
    expect(ratingLabel(10, 'points')).toBe('10/10');
  });

  it('keeps the query in page links and drops page 1', () => {
    expect(paginationView('/history', { q: 'heat', page: 2 }, 2, 3)).toEqual({
      page: 2,
      pages: 3,
      previous: '/history?q=heat',
      next: '/history?q=heat&page=3',
    });
    expect(paginationView('/history', {}, 1, 1)).toMatchObject({ previous: null, next: null });
  });
});
