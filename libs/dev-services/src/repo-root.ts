import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The nearest directory holding package.json, from `start` upwards. Scripts run from both
 * `scripts/` (ts) and `dist/scripts/` (compiled, where dist/ has no package.json), and
 * `.data/` must land in the same place either way.
 */
export function findRepoRoot(start: string): string {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${start}`);
  }
}
