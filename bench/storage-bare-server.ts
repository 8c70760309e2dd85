/**
 * A bare `node:http` file server for bench/storage: what HTTP over loopback between two
 * processes costs with no framework, no database and no policy checks. POST /<name> streams
 * the body through MD5 (the fs driver's ETag; not with `?md5=0`) into <dir>/<name>; GET /<name>
 * streams the file back. Names are URL-encoded into one file name, so `a/b.bin` needs no
 * directory.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

async function handle(dir: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url!, 'http://bare');
  const path = join(dir, encodeURIComponent(decodeURIComponent(url.pathname.slice(1))));
  if (req.method === 'POST') {
    if (url.searchParams.get('md5') === '0') {
      await pipeline(req, createWriteStream(path));
      res.end('{}');
      return;
    }
    const md5 = createHash('md5');
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(req, meter, createWriteStream(path));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ etag: md5.digest('hex') }));
    return;
  }
  const { size } = await stat(path);
  res.setHeader('content-type', 'application/octet-stream');
  res.setHeader('content-length', String(size));
  await pipeline(createReadStream(path), res);
}

export async function startBareServer(dir: string): Promise<BareServer> {
  const server = createServer((req, res) => {
    handle(dir, req, res).catch((e: unknown) => {
      if (!res.headersSent) res.statusCode = 500;
      res.end(String(e));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
