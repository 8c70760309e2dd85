import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureMasterKey, masterKeyFileOf } from './master-key';

describe('ensureMasterKey', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'bp-master-key-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prefers MASTER_KEY from the environment and writes nothing', () => {
    const log = jest.fn();
    expect(ensureMasterKey(dir, { env: { MASTER_KEY: 'abc' }, log })).toBe('abc');
    expect(() => statSync(masterKeyFileOf(dir))).toThrow();
    expect(log).not.toHaveBeenCalled();
  });

  it('creates a 32-byte hex key readable only by its owner, and says so once', () => {
    const log = jest.fn();
    const key = ensureMasterKey(join(dir, 'nested'), { env: {}, log });
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const file = masterKeyFileOf(join(dir, 'nested'));
    expect(readFileSync(file, 'utf8').trim()).toBe(key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0][0]).toContain(file);
    expect(log.mock.calls[0][0]).not.toContain(key);
  });

  it('returns the same key on later runs without announcing it again', () => {
    const log = jest.fn();
    const first = ensureMasterKey(dir, { env: {}, log });
    expect(ensureMasterKey(dir, { env: {}, log })).toBe(first);
    expect(log).toHaveBeenCalledTimes(1);
  });
});
