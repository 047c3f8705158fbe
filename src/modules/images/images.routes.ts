import { Type } from 'typebox';
import { notFound } from '../../shared/errors.js';
import type { App } from '../../shared/http.js';
import { imageTypeOf } from './image-store.js';
import type { ImagesService } from './images.service.js';

const ImageParams = Type.Object({
  size: Type.String({ maxLength: 10 }),
  file: Type.String({ maxLength: 200 }),
});

/**
 * `GET /images/{size}/{file}`: a poster, backdrop or picture from the local cache, kept by browsers for a
 * year (the name never changes content). Not cached yet: a redirect to TMDB's copy, and the download is
 * queued. No credential: these are TMDB's public images, not anyone's data.
 */
export function imageRoutes(app: App, deps: { images: ImagesService }): void {
  app.get('/images/:size/:file', { schema: { hide: true, params: ImageParams } }, async (request, reply) => {
    const { size, file } = request.params;
    const answer = await deps.images.serve(size, file);
    if (answer.kind === 'unknown') throw notFound('ImageNotFound', 'no such image');
    if (answer.kind === 'elsewhere') {
      return reply.header('cache-control', 'no-store').redirect(answer.url, 307);
    }
    return reply
      .headers({
        'content-type': imageTypeOf(answer.bytes) ?? 'application/octet-stream',
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'",
      })
      .send(answer.bytes);
  });
}
