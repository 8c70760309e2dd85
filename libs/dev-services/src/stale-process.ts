import { readFileSync, writeFileSync } from 'node:fs';

/** The parent pid from the text of `/proc/<pid>/stat` (the comm field may hold spaces). */
export function parentPidFromStat(stat: string): number | undefined {
  const afterComm = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(afterComm[1]);
  return Number.isInteger(ppid) && ppid >= 0 ? ppid : undefined;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const readProc = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * A server we spawned is left behind when its Node parent was killed hard: it is then
 * re-parented (to init or a subreaper) while still holding our data directory or pid
 * file, so the next start may stop it. `ownerPid` is the process that started it (from
 * its owner file): a server still parented by it belongs to a live run and is left alone.
 * Without /proc (macOS) the owner being dead is the test; with no owner known, only a
 * server parented by init counts.
 */
export function isOrphaned(pid: number, ownerPid?: number): boolean {
  const stat = readProc(`/proc/${pid}/stat`);
  const ppid = stat === undefined ? undefined : parentPidFromStat(stat);
  if (ownerPid === undefined) return ppid !== undefined && ppid <= 1;
  if (ppid !== undefined) return ppid !== ownerPid;
  return !isAlive(ownerPid);
}

/** Records which process started a server, for isOrphaned() in a later run. */
export function writeOwner(file: string): void {
  writeFileSync(file, `${process.pid}\n`);
}

export function readPidFile(file: string): number | undefined {
  const pid = Number(readProc(file)?.split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Sends `signal` and waits up to `timeoutMs` for the process to go, then SIGKILLs it. */
export async function stopPid(
  pid: number,
  signal: NodeJS.Signals,
  timeoutMs = 10_000,
): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
