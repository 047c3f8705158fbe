import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorFields, stackMapper } from './mapped-stack.js';

// A small build like the server's (scripts/bundle.js: whitespace minified, a linked map without the
// sources' text), whose function throws on a known line of its source. It runs in a process of its own:
// Vitest maps the stacks of what it imports itself.
let dir: string;
let built: string;
let thrown: { stack: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cinelog-stack-'));
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(
    join(dir, 'src', 'thrower.ts'),
    [
      'export function first(n: number): number {',
      '  return second(n) + 1;',
      '}',
      '',
      'function second(n: number): number {',
      "  if (n > 0) throw new Error('too big: ' + n);", // line 6
      '  return n;',
      '}',
      '',
      'try {',
      '  first(3);',
      '} catch (error) {',
      '  process.stdout.write((error as Error).stack!);',
      '}',
      '',
    ].join('\n'),
  );
  built = join(dir, 'dist', 'thrower.js');
  await build({
    entryPoints: [join(dir, 'src', 'thrower.ts')],
    outfile: built,
    bundle: true,
    format: 'esm',
    platform: 'node',
    sourcemap: 'linked',
    sourcesContent: false,
    minifyWhitespace: true,
    logLevel: 'silent',
  });
  thrown = { stack: execFileSync(process.execPath, [built], { encoding: 'utf8' }) };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stackMapper', () => {
  it('maps the frames of a built file to the line and column of its source', () => {
    expect(thrown.stack).toContain('thrower.js:1:'); // as built: everything on one line
    const mapped = stackMapper(join(dir, 'dist'))(thrown.stack);
    const lines = mapped.split('\n');
    expect(lines[0]).toBe('Error: too big: 3');
    expect(lines[1]).toMatch(/at second \(.*/);
    expect(lines[1]).toContain(`${join(dir, 'src', 'thrower.ts')}:6:`);
    expect(lines[2]).toMatch(/at .*first \(/);
    expect(lines[2]).toContain(`${join(dir, 'src', 'thrower.ts')}:2:`);
    expect(mapped).not.toContain('thrower.js');
  });

  it('leaves frames outside the build, and frames of a file without a map, as they are', () => {
    expect(stackMapper(join(dir, 'elsewhere'))(thrown.stack)).toBe(thrown.stack);
    writeFileSync(join(dir, 'dist', 'plain.js'), 'export {};\n');
    const stack = `Error: x\n    at f (${pathToFileURL(join(dir, 'dist', 'plain.js')).href}:1:1)\n    at node:internal/x:1:1`;
    expect(stackMapper(join(dir, 'dist'))(stack)).toBe(stack);
  });
});

describe('errorFields', () => {
  it("is pino's error serializer: type, message and stack", () => {
    const error = new TypeError('bad thing');
    const fields = errorFields(error);
    expect(fields.type).toBe('TypeError');
    expect(fields.message).toBe('bad thing');
    // Run from the sources here: nothing built to map, the stack is the error's own.
    expect(fields.stack).toBe(error.stack);
  });
});
