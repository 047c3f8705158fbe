// Run by `npm ci` (prepare): makes sure the better-sqlite3 addon cannot abort the process.
//
// better-sqlite3 12 compiled against the headers of Node.js 24.19 or later (a source build, e.g.
// with npm_config_nodedir and no access to its prebuilt binaries) aborts the process whenever the
// garbage collector frees one of its statements outside JavaScript: at random, at start-up or exit
// (see docs/deployment.md#nodejs-versions). Such a build, and only such a build, calls
// node::RemoveEnvironmentCleanupHook (from ObjectWrap's destructor): its name is in the addon's
// imported symbols. Then better-sqlite3 is compiled again, with npm's node-gyp, against the same
// Node.js's headers without that hook (scripts/node-headers.sh), and checked again. Otherwise (Node.js
// 20 and 22, better-sqlite3's prebuilt binaries, a good build) this only reads the addon.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const addonDir = join(root, 'node_modules', 'better-sqlite3');
const addon = join(addonDir, 'build', 'Release', 'better_sqlite3.node');
const hooked = () => existsSync(addon) && readFileSync(addon).includes('RemoveEnvironmentCleanupHook');
const say = (line) => process.stderr.write(`sqlite-addon: ${line}\n`);

if (!hooked()) process.exit(0);

say(
  `better-sqlite3 was compiled against headers with ObjectWrap's cleanup hook: it would abort (${process.version})`,
);
const nodeDir = [process.env.npm_config_nodedir, dirname(dirname(process.execPath))].find(
  (dir) => dir && existsSync(join(dir, 'include', 'node', 'node_object_wrap.h')),
);
if (!nodeDir) {
  say('no Node.js headers found (set npm_config_nodedir): see docs/deployment.md#nodejs-versions');
  process.exit(1);
}
const headers = join(root, 'node_modules', '.cache', 'cinelog-node-headers', process.version);
const patch = spawnSync('sh', [join(root, 'scripts', 'node-headers.sh'), nodeDir, headers], {
  stdio: 'inherit',
});
if (patch.status !== 0) process.exit(1);

const npmGyp = () => {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
  if (process.env.npm_execpath) {
    const bundled = join(
      dirname(process.env.npm_execpath),
      '..',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    );
    if (existsSync(bundled)) return bundled;
  }
  // The npm on the PATH (bin/npm-cli.js in its package), outside npm's own scripts.
  const npm = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout?.trim();
  return join(dirname(realpathSync(npm || 'npm')), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
};
// node-gyp takes npm_config_nodedir over --nodedir.
const build = spawnSync(process.execPath, [npmGyp(), 'rebuild', '--release'], {
  cwd: addonDir,
  env: { ...process.env, npm_config_nodedir: headers },
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
if (build.status !== 0) {
  process.stderr.write(`${build.stdout}${build.stderr}`.split('\n').slice(-40).join('\n'));
  say('compiling better-sqlite3 failed');
  process.exit(1);
}
const check = spawnSync(
  process.execPath,
  ['-e', "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"],
  {
    cwd: root,
    encoding: 'utf8',
  },
);
if (hooked() || check.status !== 0) {
  say(`better-sqlite3 still fails after the rebuild\n${check.stderr}`);
  process.exit(1);
}
say(`better-sqlite3 compiled again against ${headers}`);
