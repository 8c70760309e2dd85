import { createServer, Server, Socket } from 'node:net';
import { ensureRedis, pingRedis, redisServerArgs, redisUnavailableMessage } from './redis';

/** A TCP server that answers every command with `reply`, standing in for redis-server. */
function fakeRedis(reply: string): Promise<{ url: string; server: Server }> {
  return new Promise((resolve) => {
    const server = createServer((socket: Socket) => socket.on('data', () => socket.write(reply)));
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `redis://127.0.0.1:${port}`, server });
    });
  });
}

async function closedPortUrl(): Promise<string> {
  const { url, server } = await fakeRedis('');
  await new Promise((r) => server.close(r));
  return url;
}

describe('pingRedis', () => {
  it('is true for +PONG', async () => {
    const { url, server } = await fakeRedis('+PONG\r\n');
    try {
      expect(await pingRedis(url)).toBe(true);
    } finally {
      server.close();
    }
  });

  it('is false for a server that wants a password', async () => {
    const { url, server } = await fakeRedis('-NOAUTH Authentication required.\r\n');
    try {
      expect(await pingRedis(url)).toBe(false);
    } finally {
      server.close();
    }
  });

  it('is false for a closed port and for a server that never answers', async () => {
    expect(await pingRedis(await closedPortUrl())).toBe(false);
    const { url, server } = await fakeRedis('');
    try {
      expect(await pingRedis(url, 100)).toBe(false);
    } finally {
      server.close();
    }
  });
});

describe('ensureRedis', () => {
  it('uses a given URL as is', async () => {
    const redis = await ensureRedis({ url: 'rediss://:pw@cache:6380' });
    expect(redis).toMatchObject({ url: 'rediss://:pw@cache:6380', source: 'given' });
  });

  it('uses a Redis that answers at the probe URL', async () => {
    const { url, server } = await fakeRedis('+PONG\r\n');
    try {
      expect(await ensureRedis({ probeUrl: url, spawn: false })).toMatchObject({
        url,
        source: 'running',
      });
    } finally {
      server.close();
    }
  });

  it('fails with one line naming the install commands and REDIS_URL when it may not spawn', async () => {
    const error = await ensureRedis({ probeUrl: await closedPortUrl(), spawn: false }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.message).not.toContain('\n');
    expect(error.message).toMatch(/apt-get install redis-server.*brew install redis.*REDIS_URL/);
  });
});

describe('redisUnavailableMessage', () => {
  it('is one line either way, with no password from the probed URL', () => {
    for (const spawnTried of [true, false]) {
      const text = redisUnavailableMessage('redis://:hunter2@127.0.0.1:6379', spawnTried);
      expect(text).not.toContain('\n');
      expect(text).not.toContain('hunter2');
      expect(text).toContain('REDIS_URL');
    }
  });
});

describe('redisServerArgs', () => {
  it('binds to loopback and persists nothing', () => {
    const args = redisServerArgs(6380, '/repo/.data/redis').join(' ');
    expect(args).toContain('--port 6380');
    expect(args).toContain('--bind 127.0.0.1');
    expect(args).toContain('--save  --appendonly no');
    expect(args).toContain('--dir /repo/.data/redis');
  });
});
