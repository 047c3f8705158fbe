import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from './paths.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('packageRoot', () => {
  it('finds the folder with package.json from any depth, bundled or not', () => {
    const root = mkdtempSync(join(tmpdir(), 'cinelog-root-'));
    made.push(root);
    writeFileSync(join(root, 'package.json'), '{}');
    mkdirSync(join(root, 'dist', 'modules', 'web'), { recursive: true });
    const at = (...parts: string[]) => pathToFileURL(join(root, ...parts)).href;
    expect(packageRoot(at('dist', 'main.js'))).toBe(root);
    expect(packageRoot(at('dist', 'modules', 'web', 'web.plugin.js'))).toBe(root);
    expect(packageRoot(import.meta.url)).toBe(join(import.meta.dirname, '..', '..'));
  });

  it('says so when there is none', () => {
    expect(() => packageRoot('file:///no-such-place/x.js')).toThrow(/no package.json/);
  });
});
