import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gzipped, ratingsTsv } from '../../../test/fake-imdb.js';
import { type ImdbRating, ImdbRatingsFormatError, readImdbRatings } from './imdb-ratings.reader.js';

/** The bytes as a stream of pieces of `size` bytes; records whether the reader closed it early. */
function piecesOf(bytes: Buffer, size = bytes.length) {
  const state = { closed: false, served: 0 };
  async function* stream() {
    try {
      for (let i = 0; i < bytes.length; i += size) {
        state.served++;
        yield bytes.subarray(i, i + size);
      }
    } finally {
      state.closed = true;
    }
  }
  return { stream: stream(), state };
}

async function read(bytes: Buffer, options: { size?: number; select?: (id: string) => boolean } = {}) {
  const ratings: ImdbRating[] = [];
  let bytesSeen = 0;
  const summary = await readImdbRatings(piecesOf(bytes, options.size).stream, {
    ...(options.select && { select: options.select }),
    onRatings: (some) => {
      ratings.push(...some);
    },
    onBytes: (n) => {
      bytesSeen += n;
    },
  });
  return { ...summary, ratings, bytesSeen };
}

const SAMPLE = ratingsTsv([
  ['tt0000001', 5.7, 2105],
  ['tt0000002', 10, 1],
  ['tt12345678', 0, 0],
]);
const SAMPLE_RATINGS = [
  { imdbId: 'tt0000001', average: 5.7, count: 2105 },
  { imdbId: 'tt0000002', average: 10, count: 1 },
  { imdbId: 'tt12345678', average: 0, count: 0 },
];

describe('reading the IMDb ratings dataset', () => {
  it('reads a plain and a gzipped file alike, counting the source bytes', async () => {
    const plain = Buffer.from(SAMPLE);
    expect(await read(plain)).toEqual({
      lines: 3,
      skipped: 0,
      ratings: SAMPLE_RATINGS,
      bytesSeen: plain.length,
    });
    const gz = gzipped(SAMPLE);
    expect(await read(gz)).toEqual({ lines: 3, skipped: 0, ratings: SAMPLE_RATINGS, bytesSeen: gz.length });
  });

  it('reads lines split anywhere across pieces, one byte at a time included', async () => {
    for (const size of [1, 2, 7, 31]) {
      expect((await read(Buffer.from(SAMPLE), { size })).ratings).toEqual(SAMPLE_RATINGS);
      expect((await read(gzipped(SAMPLE), { size })).ratings).toEqual(SAMPLE_RATINGS);
    }
  });

  it('takes CRLF line ends and a last line without its line end', async () => {
    const text = SAMPLE.trimEnd().replace(/\n/g, '\r\n');
    expect(await read(Buffer.from(text))).toMatchObject({ lines: 3, skipped: 0, ratings: SAMPLE_RATINGS });
  });

  it('skips and counts malformed lines, and hands over only the selected titles', async () => {
    const text = ratingsTsv([
      ['tt0000001', 5.7, 2105],
      'tt0000003\t6.1', // a field short
      ['tt123', 5, 10], // too few digits
      ['nm0000001', 5, 10], // a person, not a title
      ['tt0000004', '11.0', 10], // out of range
      ['tt0000005', 'x', 10],
      ['tt0000006', 5, '-3'],
      ['tt0000007', 5, '99999999999'], // more votes than an integer column holds
      '', // an empty line in the middle
      `tt0000008\t5.0\t${'9'.repeat(5000)}`, // longer than any real line
      ['tt0000009', '7.25', 3], // more decimals than IMDb writes: still a rating
      ['tt0000010', 8, 40],
    ]);
    for (const size of [undefined, 100]) {
      const result = await read(Buffer.from(text), { size, select: (id) => id !== 'tt0000010' });
      expect(result).toMatchObject({ lines: 12, skipped: 9 });
      expect(result.ratings).toEqual([
        { imdbId: 'tt0000001', average: 5.7, count: 2105 },
        { imdbId: 'tt0000009', average: 7.25, count: 3 },
      ]);
    }
  });

  it.each([
    [
      'another header',
      'id\trating\tvotes\ntt0000001\t5.7\t2105\n',
      'its first line is "id<TAB>rating<TAB>votes"',
    ],
    ['no header', 'tt0000001\t5.7\t2105\n', 'its first line is "tt0000001<TAB>5.7<TAB>2105"'],
    ['an empty file', '', 'it is empty'],
    ['a binary file', '\u0000\u0001PK\u0003\u0004', 'its first line is "??PK??"'],
    ['a file without line ends', 'x'.repeat(3000), `its first line is "${'x'.repeat(60)}..."`],
  ])('refuses %s with a clear error', async (_, text, why) => {
    const expected = `not an IMDb title.ratings.tsv(.gz) file: ${why}, expected "tconst<TAB>averageRating<TAB>numVotes"`;
    const plain = read(Buffer.from(text, 'latin1'));
    await expect(plain).rejects.toThrow(ImdbRatingsFormatError);
    await expect(plain).rejects.toThrow(expected);
    await expect(read(gzipped(text))).rejects.toThrow(expected);
  });

  it('refuses a gzip file cut short or corrupt', async () => {
    const gz = gzipped(SAMPLE);
    await expect(read(gz.subarray(0, gz.length - 12))).rejects.toThrow(
      /^not a readable gzip file: unexpected end of file$/,
    );
    const corrupt = Buffer.from(gz);
    corrupt[3] = 0xff; // reserved flag bits
    await expect(read(corrupt)).rejects.toThrow(ImdbRatingsFormatError);
  });

  it('stops reading and closes the source once the header is refused', async () => {
    // Random bytes: gzip cannot shrink them, so both forms come in many pieces.
    const big = Buffer.concat([Buffer.from('wrong\theader\n'), randomBytes(200_000)]);
    for (const bytes of [big, gzipped(big.toString('latin1'))]) {
      const { stream, state } = piecesOf(bytes, 1024);
      await expect(readImdbRatings(stream, { onRatings: () => undefined })).rejects.toThrow(
        ImdbRatingsFormatError,
      );
      expect(state.closed).toBe(true);
      expect(state.served).toBeLessThan(bytes.length / 1024 / 2);
    }
  });

  it('waits for a slow consumer before reading on', async () => {
    const text = ratingsTsv(
      Array.from({ length: 2000 }, (_, i) => [`tt${String(i).padStart(7, '0')}`, 5, i]),
    );
    const { stream, state } = piecesOf(Buffer.from(text), 1000);
    let busy = false;
    await readImdbRatings(stream, {
      onRatings: async () => {
        expect(busy).toBe(false);
        busy = true;
        const servedBefore = state.served;
        await new Promise((resolve) => setTimeout(resolve, 1));
        expect(state.served).toBe(servedBefore);
        busy = false;
      },
    });
  });
});
