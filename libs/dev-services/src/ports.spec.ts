import { createServer, Server } from 'node:net';
import { findFreePort, isPortFree } from './ports';

const listen = (port: number): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('findFreePort', () => {
  it('returns the preferred port when nothing listens there', async () => {
    const probe = await listen(0);
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    expect(await isPortFree(port)).toBe(true);
    expect(await findFreePort(port)).toBe(port);
  });

  it('falls back to another free port when the preferred one is taken', async () => {
    const busy = await listen(0);
    const port = (busy.address() as { port: number }).port;
    try {
      expect(await isPortFree(port)).toBe(false);
      const other = await findFreePort(port);
      expect(other).not.toBe(port);
      expect(await isPortFree(other)).toBe(true);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });
});
