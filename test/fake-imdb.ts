import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A small `title.ratings.tsv` of the tests' own, and a local stand-in for IMDb's dataset server.
 * Every id and value is made up.
 */

export type RatingRow = readonly [imdbId: string, average: number | string, count: number | string];

/** The dataset's text: IMDb's header, then one line per row (numbers as IMDb writes them: "7.0"). */
export function ratingsTsv(rows: readonly (RatingRow | string)[]): string {
  const lines = rows.map((row) =>
    typeof row === 'string'
      ? row
      : `${row[0]}\t${typeof row[1] === 'number' ? row[1].toFixed(1) : row[1]}\t${row[2]}`,
  );
  return ['tconst\taverageRating\tnumVotes', ...lines, ''].join('\n');
}

export const gzipped = (text: string) => gzipSync(Buffer.from(text, 'latin1'));

export const RATINGS_PATH = '/title.ratings.tsv.gz';

export interface FakeImdb {
  /** The dataset's URL: what IMDB_RATINGS_URL would be. */
  url: string;
  /** What the next downloads get: the body (sent in pieces), or a failure. */
  serve(
    answer:
      | { body: Buffer; pieces?: number }
      | { status: number }
      /** Headers never come. */
      | { stall: 'headers' }
      /** The first half of the body comes, the rest never does. */
      | { stall: 'body'; body: Buffer },
  ): void;
  /** Requests received so far. */
  requests: number;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 answering `GET /title.ratings.tsv.gz` as told; 404 for anything else. */
export async function startFakeImdb(): Promise<FakeImdb> {
  let answer: Parameters<FakeImdb['serve']>[0] = { status: 503 };
  const fake = { requests: 0 } as FakeImdb;
  const stalled = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    fake.requests++;
    if (req.method !== 'GET' || req.url !== RATINGS_PATH) {
      res.writeHead(404).end();
      return;
    }
    if ('status' in answer) {
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end('no dataset here\n');
      return;
    }
    if ('stall' in answer) {
      stalled.add(res);
      if (answer.stall === 'body') {
        res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': answer.body.length });
        res.write(answer.body.subarray(0, Math.floor(answer.body.length / 2)));
      }
      return;
    }
    const { body, pieces = 4 } = answer;
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length });
    // In pieces, one per turn of the event loop: the client sees a stream, not one buffer.
    const size = Math.ceil(body.length / pieces);
    let offset = 0;
    const next = () => {
      if (offset >= body.length) {
        res.end();
        return;
      }
      res.write(body.subarray(offset, offset + size));
      offset += size;
      setImmediate(next);
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  fake.url = `http://127.0.0.1:${port}${RATINGS_PATH}`;
  fake.serve = (next) => {
    answer = next;
  };
  fake.close = async () => {
    for (const res of stalled) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  };
  return fake;
}
