import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The widths cinelog asks TMDB for: logos, people, posters (lists and pages), backdrops. */
export const IMAGE_SIZES = ['w92', 'w185', 'w342', 'w500', 'w780'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];

/** What each kind of image is fetched and shown at (movies.presenter.ts builds the same URLs). */
export const SIZE_OF = { poster: 'w342', backdrop: 'w780', profile: 'w185', logo: 'w92' } as const;

// TMDB's image names: a random stem and a raster extension. SVG is never kept: served from our own
// origin, a script inside one would run as cinelog.
const FILE_NAME = /^[A-Za-z0-9_-]{1,100}\.(jpg|jpeg|png|webp)$/;

export const isImageSize = (size: string): size is ImageSize =>
  (IMAGE_SIZES as readonly string[]).includes(size);
export const isImageFile = (file: string) => FILE_NAME.test(file);

/** The content type of image bytes by their first bytes (never by what a server claimed), or null. */
export function imageTypeOf(bytes: Uint8Array): 'image/jpeg' | 'image/png' | 'image/webp' | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 8 && Buffer.from(bytes.subarray(0, 8)).equals(PNG_SIGNATURE)) return 'image/png';
  if (
    bytes.length >= 12 &&
    Buffer.from(bytes.subarray(0, 4)).toString('latin1') === 'RIFF' &&
    Buffer.from(bytes.subarray(8, 12)).toString('latin1') === 'WEBP'
  ) {
    return 'image/webp';
  }
  return null;
}
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Cached images on disk: `<dir>/<size>/<file>`, the names checked before any path is built, each
 * file written whole (a temporary file renamed into place), so a reader never sees half an image.
 */
export class ImageStore {
  constructor(readonly dir: string) {}

  #path(size: ImageSize, file: string): string {
    if (!isImageSize(size) || !isImageFile(file)) throw new Error(`not an image name: ${size}/${file}`);
    return join(this.dir, size, file);
  }

  async has(size: ImageSize, file: string): Promise<boolean> {
    try {
      return (await stat(this.#path(size, file))).isFile();
    } catch {
      return false;
    }
  }

  /** The image's bytes, or null when it is not cached. */
  async read(size: ImageSize, file: string): Promise<Buffer | null> {
    try {
      return await readFile(this.#path(size, file));
    } catch {
      return null;
    }
  }

  async write(size: ImageSize, file: string, bytes: Uint8Array): Promise<void> {
    const target = this.#path(size, file);
    await mkdir(join(this.dir, size), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.part`;
    try {
      await writeFile(temporary, bytes);
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }
}
