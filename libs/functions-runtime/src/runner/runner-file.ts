import { chmodSync, lstatSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUNNER_SOURCE } from './runner-source';

export const RUNNER_FILE_NAME = 'runner.js';

/**
 * The runner on disk: a fresh directory under the temp dir holding only `runner.js`, owned by
 * the platform's user (root in production), 0755 / 0644 so an unprivileged worker can read it
 * but nobody else can change it. Workers get read access to exactly this file. Created on first
 * use, so an app that never runs a function leaves nothing behind.
 */
export class RunnerFile {
  private dir: string | undefined;

  constructor(private readonly baseDir: string = tmpdir()) {}

  /** The runner's absolute real path (the permission model compares resolved paths). */
  get path(): string {
    return join(this.directory, RUNNER_FILE_NAME);
  }

  get directory(): string {
    this.dir ??= writeRunner(this.baseDir);
    return this.dir;
  }

  remove(): void {
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

function writeRunner(baseDir: string): string {
  const dir = realpathSync(mkdtempSync(join(baseDir, 'baseplate-fn-')));
  chmodSync(dir, 0o755);
  const file = join(dir, RUNNER_FILE_NAME);
  // 'wx': the directory is new, so an existing entry (a planted symlink) is an attack.
  writeFileSync(file, RUNNER_SOURCE, { mode: 0o644, flag: 'wx' });
  chmodSync(file, 0o644); // the umask may have narrowed the mode
  const stat = lstatSync(file);
  if (!stat.isFile() || stat.nlink !== 1)
    throw new Error(`Runner file ${file} is not a plain file`);
  return dir;
}
