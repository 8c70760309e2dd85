import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isInitialised, passwordFileOf } from './embedded-postgres';

describe('embedded PostgreSQL helpers', () => {
  it('keeps the password beside the data directory, which initdb wants empty', () => {
    expect(passwordFileOf('/repo/.data/postgres')).toBe('/repo/.data/postgres.password');
    expect(passwordFileOf('/repo/.data/postgres/')).toBe('/repo/.data/postgres.password');
  });

  it('counts a data directory as initialised once it has PG_VERSION', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bp-pgdata-'));
    try {
      expect(isInitialised(dir)).toBe(false);
      expect(isInitialised(join(dir, 'missing'))).toBe(false);
      writeFileSync(join(dir, 'PG_VERSION'), '17\n');
      expect(isInitialised(dir)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
