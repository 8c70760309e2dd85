import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface EnsureMasterKeyOptions {
  env?: Record<string, string | undefined>;
  /** Where the one-time notice goes (stdout by default). */
  log?: (line: string) => void;
}

export const masterKeyFileOf = (dataDir: string): string => join(resolve(dataDir), 'master.key');

/**
 * MASTER_KEY from the environment, else the development key in `<dataDir>/master.key`,
 * created on first use (32 random bytes as hex, readable by this user only). The key must
 * stay the same across runs: it seals every project's JWT secret and derives the
 * authenticator password, so a new key would orphan existing projects.
 */
export function ensureMasterKey(dataDir: string, options: EnsureMasterKeyOptions = {}): string {
  const fromEnv = (options.env ?? process.env).MASTER_KEY;
  if (fromEnv) return fromEnv;
  const file = masterKeyFileOf(dataDir);
  mkdirSync(resolve(dataDir), { recursive: true });
  const key = randomBytes(32).toString('hex');
  try {
    // 'wx' fails if the file exists, so two processes starting together agree on one key.
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return readFileSync(file, 'utf8').trim();
  }
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  log(`Generated a development MASTER_KEY in ${file} (set MASTER_KEY in production)`);
  return key;
}
