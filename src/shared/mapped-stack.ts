import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';

// Stack traces in the log point at the TypeScript sources, read from the source maps only when an error
// is logged. `node --enable-source-maps` would do it for every stack, but it keeps each loaded file's map
// parsed in memory from the start: 7-8 MB of the server's RSS at rest, for the few stacks a healthy
// server ever logs (docs/performance.md, "Memory").

/** Matches a frame's location in a built file: `file:///…/x.js:line:column` or `/…/x.js:line:column`. */
const FRAME = /((?:file:\/\/)?\/[^\s():]+\.js):(\d+):(\d+)/g;

/**
 * Maps the frames of `stack` that lie in a file under `builtDir` and have a `.map` beside it to their
 * source file, line and column; any other frame stays as it is. Each map is read once, when a stack
 * first needs it. Outside a build (the tests run the TypeScript sources) there is nothing to map.
 */
export function stackMapper(builtDir: string): (stack: string) => string {
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (file: string): SourceMap | null => {
    let map = maps.get(file);
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
      } catch {
        map = null; // no map, or not readable: the frame stays as built
      }
      maps.set(file, map);
    }
    return map;
  };
  return (stack) =>
    stack.replace(FRAME, (frame, location: string, line: string, column: string) => {
      const file = location.startsWith('file://') ? fileURLToPath(location) : location;
      if (!file.startsWith(`${builtDir}/`)) return frame;
      const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
      if (!entry || !('originalSource' in entry)) return frame;
      return `${resolve(dirname(file), entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    });
}

// The build this module is part of: dist/ (the server's bundle, dist/main.js, or dist/shared/ as tsc
// emits it for the CLI).
const here = dirname(fileURLToPath(import.meta.url));
const mappedStack = stackMapper(basename(here) === 'shared' ? dirname(here) : here);

/** The log's `err` serializer: pino's own, with the stack's frames mapped to the sources. */
export function errorFields(error: Error): pino.SerializedError {
  const fields = pino.stdSerializers.err(error);
  if (typeof fields.stack === 'string') fields.stack = mappedStack(fields.stack);
  return fields;
}
