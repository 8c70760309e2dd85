import { heapMb, workerCommand } from './worker-command';

describe('workerCommand', () => {
  const base = {
    nodePath: '/usr/bin/node',
    runnerPath: '/tmp/baseplate-fn-x/runner.js',
    memoryMb: 128,
  };

  it('wraps node in prlimit with data, descriptor and core caps, and drops the uid', () => {
    const cmd = workerCommand({ ...base, prlimitPath: '/usr/bin/prlimit', uid: 65534 });
    expect(cmd.file).toBe('/usr/bin/prlimit');
    expect(cmd.args).toEqual([
      `--data=${128 * 1024 * 1024}`,
      '--nofile=256',
      '--core=0',
      '/usr/bin/node',
      '--experimental-permission',
      '--allow-fs-read=/tmp/baseplate-fn-x/runner.js',
      '--max-old-space-size=64',
      '--no-warnings',
      '/tmp/baseplate-fn-x/runner.js',
      'ipc',
    ]);
    expect(cmd.options).toMatchObject({
      uid: 65534,
      gid: 65534,
      env: {},
      detached: true,
      serialization: 'json',
      cwd: '/tmp/baseplate-fn-x',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
  });

  it('never grants write, child process, worker, addon or WASI permissions', () => {
    const { args } = workerCommand({ ...base, prlimitPath: '/usr/bin/prlimit' });
    expect(args.filter((a) => a.startsWith('--allow-'))).toEqual([
      '--allow-fs-read=/tmp/baseplate-fn-x/runner.js',
    ]);
  });

  it('runs node directly without prlimit, keeps the uid when none is given, passes only the CA bundle', () => {
    const cmd = workerCommand({ ...base, extraCaCerts: '/etc/ca.pem' });
    expect(cmd.file).toBe('/usr/bin/node');
    expect(cmd.options.uid).toBeUndefined();
    expect(cmd.options.env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/ca.pem' });
  });

  it('gives small limits enough room for Node to start', () => {
    expect(workerCommand({ ...base, memoryMb: 16, prlimitPath: '/p' }).args[0]).toBe(
      `--data=${64 * 1024 * 1024}`,
    );
    expect(heapMb(16)).toBe(32);
    expect(heapMb(1024)).toBe(512);
  });
});
