#!/usr/bin/env node
/**
 * `npm start`'s prestart: compiles to dist/ only when it is missing or older than the sources, and only
 * where the compiler is installed. A production install (`npm prune --omit=dev`, as buildpacks and many
 * Dockerfiles do after `npm run build`) has no compiler: it serves the dist/ it was built with, and says
 * so when the sources are newer. Only a missing dist/ with no compiler to make it is an error. Plain Node
 * with no dependencies.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const entry = path.join(root, 'dist/src/main.js');
const compiler = path.join(root, 'node_modules/typescript/bin/tsc');

/** The newest modification time of the files under `dir` (0 when it does not exist). */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** The workspace packages the server imports at run time, each compiled to its own dist/ first. */
const packages = ['packages/contract-registry'];
const builtAt = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);
const built = Math.min(builtAt(entry), ...packages.map((dir) => builtAt(path.join(root, dir, 'dist/index.js'))));
const sources = Math.max(
  newest(path.join(root, 'src')),
  newest(path.join(root, 'generated')),
  ...packages.map((dir) => newest(path.join(root, dir, 'src'))),
);
const stale = built === 0 || sources > built;
if (!stale) process.exit(0);
if (!existsSync(compiler)) {
  if (built === 0) {
    console.error(
      'dist/ is missing and the TypeScript compiler is not installed: run `npm run build` where dev dependencies are installed (npm ci), then start.',
    );
    process.exit(1);
  }
  console.error(
    'note: the sources are newer than dist/, but the TypeScript compiler is not installed (a production install); serving the dist/ that was built.',
  );
  process.exit(0);
}
for (const project of [...packages.map((dir) => path.join(dir, 'tsconfig.build.json')), 'tsconfig.build.json']) {
  const result = spawnSync(process.execPath, [compiler, '-p', project], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
