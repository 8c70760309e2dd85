import { containerSpec, type ContainerSpecInput } from './container-spec';

const INPUT: ContainerSpecInput = {
  fn: { ref: 'abcdefghijklmnopqrst', slug: 'hello', version: 3 },
  limits: { timeoutMs: 1000, memoryMb: 256, maxPayloadBytes: 1024, maxConcurrency: 4 },
  image: 'node:20-slim',
  network: 'baseplate-functions',
  user: '65534:65534',
  runnerDir: '/tmp/baseplate-fn-a',
  socketDir: '/tmp/baseplate-fn-sockets-b/1',
  runtimeId: 'r1',
  suffix: 'cafe',
  cpus: 0.5,
  pidsLimit: 64,
};

describe('containerSpec', () => {
  it('locks the container down', () => {
    const spec = containerSpec(INPUT);
    expect(spec.User).toBe('65534:65534');
    expect(spec.Env).toEqual([]);
    expect(spec.HostConfig).toMatchObject({
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      Memory: 256 * 1024 * 1024,
      MemorySwap: 256 * 1024 * 1024,
      NanoCpus: 500_000_000,
      PidsLimit: 64,
      NetworkMode: 'baseplate-functions',
      Ulimits: expect.arrayContaining([{ Name: 'nofile', Soft: 256, Hard: 256 }]),
      Binds: [
        '/tmp/baseplate-fn-a:/opt/baseplate:ro',
        '/tmp/baseplate-fn-sockets-b/1:/run/baseplate:rw',
      ],
    });
    expect(spec.HostConfig?.CapAdd).toBeUndefined();
  });

  it('runs the runner in HTTP mode under the permission model', () => {
    const spec = containerSpec(INPUT);
    expect(spec.Image).toBe('node:20-slim');
    expect(spec.Entrypoint).toEqual(['node']);
    expect(spec.Cmd).toEqual([
      '--experimental-permission',
      '--allow-fs-read=/opt/baseplate/runner.js',
      '--max-old-space-size=128',
      '--no-warnings',
      '/opt/baseplate/runner.js',
      'http',
      '/run/baseplate/runner.sock',
    ]);
    expect(spec.name).toBe('baseplate-fn-abcdefghijklmnopqrst-hello-v3-cafe');
    expect(spec.Labels).toEqual({
      'io.baseplate.function': 'abcdefghijklmnopqrst/hello@3',
      'io.baseplate.runtime': 'r1',
    });
  });

  it.each(['0:0', '0', 'root', '', '00:1'])('refuses user %j', (user) => {
    expect(() => containerSpec({ ...INPUT, user })).toThrow('never run as root');
  });
});
