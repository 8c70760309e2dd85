import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workerCommand } from '@baseplate/functions-runtime';

/**
 * The runner's allow-list stops every probe of process-runtime.int-spec.ts before the process
 * flags are reached; this runs code with the real `require` under the same command line as a
 * worker, to show the second wall (permission model, uid drop) holds on its own.
 */
describe('process function runtime: the worker command alone', () => {
  const PROBE = `
    const out = { uid: process.getuid(), env: process.env };
    const t = (name, f) => {
      try { out[name] = 'ALLOWED ' + String(f()).slice(0, 30); } catch (e) { out[name] = e.code || e.message; }
    };
    t('read /etc/passwd', () => require('fs').readFileSync('/etc/passwd', 'utf8'));
    t('readdir /', () => require('fs').readdirSync('/'));
    t('write its own directory', () => require('fs').writeFileSync(__dirname + '/x', 'x'));
    t('child_process', () => require('child_process').execSync('id'));
    t('worker_threads', () => new (require('worker_threads').Worker)('1', { eval: true }));
    t('process.binding', () => process.binding('fs'));
    t('signal the parent', () => process.kill(process.ppid, 0));
    const s = require('net').connect(__dirname + '/platform.sock');
    s.on('connect', () => { out['root-owned unix socket'] = 'ALLOWED'; done(); });
    s.on('error', (e) => { out['root-owned unix socket'] = e.code; done(); });
    function done() { process.send(out, () => process.exit(0)); }
  `;

  it('denies fs, child processes, workers, bindings, signals and root sockets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bp-probe-'));
    chmodSync(dir, 0o755);
    const file = join(dir, 'probe.js');
    writeFileSync(file, PROBE, { mode: 0o644 });
    const sock = createServer((c) => c.end('platform secrets'));
    await new Promise<void>((r) => sock.listen(join(dir, 'platform.sock'), r));
    try {
      const cmd = workerCommand({
        nodePath: process.execPath,
        runnerPath: file,
        memoryMb: 128,
        prlimitPath: '/usr/bin/prlimit',
        uid: 65534,
      });
      const child = spawn(cmd.file, cmd.args, cmd.options);
      const out = await new Promise<Record<string, unknown>>((resolve) =>
        child.once('message', resolve),
      );
      expect(out).toEqual({
        uid: 65534,
        env: {},
        'read /etc/passwd': 'ERR_ACCESS_DENIED',
        'readdir /': 'ERR_ACCESS_DENIED',
        'write its own directory': 'ERR_ACCESS_DENIED',
        child_process: 'ERR_ACCESS_DENIED',
        worker_threads: 'ERR_ACCESS_DENIED',
        'process.binding': 'ERR_ACCESS_DENIED',
        'signal the parent': 'EPERM',
        'root-owned unix socket': 'EACCES',
      });
    } finally {
      sock.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
