import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from './repo-root';

describe('findRepoRoot', () => {
  it('finds the directory holding package.json from deep inside the repository', () => {
    const root = findRepoRoot(__dirname);
    expect(existsSync(join(root, 'package.json'))).toBe(true);
    expect(existsSync(join(root, 'libs', 'dev-services'))).toBe(true);
  });

  it('fails clearly where there is none', () => {
    expect(() => findRepoRoot('/')).toThrow(/No package.json/);
  });
});
