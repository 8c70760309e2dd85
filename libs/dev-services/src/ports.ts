import { createServer } from 'node:net';

/** True when nothing listens on host:port (we could bind it ourselves). */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * `preferred` when it is free, else a port the OS hands out. A fixed preferred port keeps
 * URLs stable between runs; the fallback keeps a second checkout (or a leftover process)
 * from turning into a start-up failure.
 */
export async function findFreePort(preferred: number, host = '127.0.0.1'): Promise<number> {
  if (await isPortFree(preferred, host)) return preferred;
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('No free port found'))));
    });
  });
}
