import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root folder (the nearest one above with a package.json) of a module given by its
 * `import.meta.url`: the same from src/ (the tests), from the modules tsc emits in dist/, and from the
 * bundled server (dist/main.js), whose modules all have its URL.
 */
export function packageRoot(moduleUrl: string): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json in ${start} or above`);
  }
}
