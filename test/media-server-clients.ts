import { createServer } from 'node:net';
import { afterEach, beforeEach, expect } from 'vitest';
import { MediaServerError } from '../src/integrations/media-servers/media-server.types.js';
import type { FakeMediaServer } from './fake-media-servers.js';

/**
 * The media-server clients' tests (src/integrations/media-servers/): a fresh fake server for each test,
 * from `start` (which may keep it for the tests), closed after it. After each test, the token travelled
 * in its header only: `expectUrl` checks each URL the server saw, and no message of an error that
 * `failure` caught quotes a token. Call it at the top of the file or of a describe block.
 */
export function fakeServerPerTest(
  start: () => Promise<FakeMediaServer>,
  expectUrl: (url: string) => void,
): { failure(promise: Promise<unknown>): Promise<MediaServerError> } {
  let server: FakeMediaServer;
  /** Every error a test saw: none may hold the token. */
  const errors: unknown[] = [];

  beforeEach(async () => {
    server = await start();
    errors.length = 0;
  });

  afterEach(async () => {
    for (const request of server.requests) expectUrl(request.url);
    for (const error of errors) expect(String((error as Error).message)).not.toMatch(/token-/i);
    await server.close();
  });

  return {
    /** The MediaServerError `promise` fails with, kept for the check after the test. */
    async failure(promise) {
      const error = await promise.then(
        () => null,
        (caught: unknown) => caught,
      );
      errors.push(error);
      expect(error).toBeInstanceOf(MediaServerError);
      return error as MediaServerError;
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
