import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error -- s3rver 3.7.1 ships no type declarations
import S3rver from 's3rver';

interface S3rverServer {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

export interface TestS3Server {
  bucket: string;
  /** The STORAGE_* settings that point the platform's s3 driver at this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** s3rver (a real S3 HTTP API over a temporary directory) on 127.0.0.1, one bucket ready. */
export async function startS3Server(bucket = 'baseplate-test'): Promise<TestS3Server> {
  const dir = await mkdtemp(join(tmpdir(), 'bp-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: dir,
    silent: true,
    configureBuckets: [{ name: bucket }],
  }) as S3rverServer;
  const { port } = await server.run();
  return {
    bucket,
    env: {
      STORAGE_DRIVER: 's3',
      STORAGE_S3_BUCKET: bucket,
      STORAGE_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      STORAGE_S3_ACCESS_KEY_ID: 'S3RVER',
      STORAGE_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
