import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The checkout's root (the folder with `package.json`), found from this file's location so that the same
 * code reads `contracts/`, `generated/` and the migrations when run from `src/` (tsx, tests) and when
 * compiled to `dist/src/` (`npm start`, the container image).
 */
export const projectRoot = findProjectRoot(import.meta.dirname);

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}
