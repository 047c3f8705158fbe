import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import { GenerationCache } from '../../db/generation.js';
import type { Database } from '../../db/schema.js';
import type { User } from '../users/users.service.js';
import { catalogVersion } from './movies.repository.js';

/**
 * Serialised list pages (history, watchlist, played), reused while nothing they show has changed.
 * A page is keyed by its owner's data version (bumped in the transaction of every write to their
 * lists, by any instance), the newest movie refresh and the query, so a stale page is never served:
 * it is simply never asked for again and ages out. Least recently used pages go first.
 */
export class ListPageCache {
  // Bytes, not strings: a string would be encoded to UTF-8 again on every send.
  readonly #pages = new Map<string, Buffer>();
  readonly #catalog: GenerationCache<'catalog', string | null>;
  #bytes = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly maxBytes = 16 * 1024 * 1024,
  ) {
    this.#catalog = new GenerationCache(db, ['movies']);
  }

  /** Sends the page from the cache, or computes, serialises (with the route's schema), stores and sends it. */
  async send(
    reply: FastifyReply,
    page: { list: string; owner: User; query: object },
    compute: () => Promise<object>,
  ): Promise<FastifyReply> {
    const { list, owner, query } = page;
    const catalog = await this.#catalog.get('catalog', () => catalogVersion(this.db));
    const key = `${list}|${owner.id}|${owner.dataVersion}|${owner.timezone}|${catalog}|${JSON.stringify(query)}`;
    let body = this.#pages.get(key);
    if (body !== undefined) {
      this.#pages.delete(key);
      this.#pages.set(key, body);
    } else {
      body = Buffer.from(reply.serialize(await compute()) as string);
      this.#store(key, body);
    }
    return reply.type('application/json; charset=utf-8').send(body);
  }

  #store(key: string, body: Buffer): void {
    if (body.length > this.maxBytes / 4) return;
    this.#pages.set(key, body);
    this.#bytes += body.length;
    for (const [oldKey, oldBody] of this.#pages) {
      if (this.#bytes <= this.maxBytes) break;
      this.#pages.delete(oldKey);
      this.#bytes -= oldBody.length;
    }
  }
}
