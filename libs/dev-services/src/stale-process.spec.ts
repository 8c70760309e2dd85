import { isAlive, isOrphaned, parentPidFromStat } from './stale-process';

describe('parentPidFromStat', () => {
  it('reads the fourth field', () => {
    expect(parentPidFromStat('4242 (postgres) S 1 4242 4242 0 -1')).toBe(1);
  });

  it('is not fooled by spaces or parentheses in the command name', () => {
    expect(parentPidFromStat('77 (my (odd) name) S 312 77 77 0 -1')).toBe(312);
  });

  it('returns undefined for garbage', () => {
    expect(parentPidFromStat('nonsense')).toBeUndefined();
  });
});

describe('isAlive / isOrphaned', () => {
  it('sees a process still parented by its recorded owner as not orphaned', () => {
    expect(isAlive(process.pid)).toBe(true);
    expect(isOrphaned(process.pid, process.ppid)).toBe(false);
  });

  it('sees a process whose parent is not its recorded owner as orphaned', () => {
    expect(isOrphaned(process.pid, 2 ** 22 + 1)).toBe(true);
  });

  it('treats a pid that does not exist as dead and not orphaned', () => {
    expect(isAlive(2 ** 22 + 1)).toBe(false);
    expect(isOrphaned(2 ** 22 + 1)).toBe(false);
    expect(isOrphaned(2 ** 22 + 1, process.pid)).toBe(false);
  });
});
