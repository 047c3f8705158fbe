#!/usr/bin/env node
// The `cinelog` command line: src/cli, compiled to dist/ by `npm ci` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('cinelog: not built yet: run `npm run build` first\n');
  process.exit(1);
}
await import(entry.href);
