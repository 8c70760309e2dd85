import {
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { ConfigError } from '@baseplate/config';
import {
  BlobKey,
  BlobNotFoundError,
  BlobTooLargeError,
  createBlobStore,
  createS3Client,
  FsBlobStore,
  InvalidBlobKeyError,
  S3BlobStore,
  versionEtag,
} from '@baseplate/storage';
import { testConfig } from '@baseplate/testing';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { startS3Server, type TestS3Server } from '../../support/s3';

/**
 * S3BlobStore against s3rver (an in-process S3 on the file system) through the real SDK
 * client that createS3Client builds. s3rver 3.7.1 implements neither ListMultipartUploads
 * (NotImplemented) nor AbortMultipartUpload (405), so "no pending multipart upload" is checked
 * as "AbortMultipartUpload was sent for the upload that was created"; the store must still
 * report the original failure when that abort is refused.
 */
describe('S3BlobStore (s3rver)', () => {
  const S3_BUCKET = 'baseplate-test';
  const REF = 'abcdefghij0123456789';
  const MiB = 1024 * 1024;
  let server: TestS3Server;
  let s3Env: Record<string, string>;
  let client: S3Client;
  let store: S3BlobStore;
  let sent: { command: string; input: Record<string, unknown> }[];

  const key = (bucket = 'avatars', ref = REF): BlobKey => ({ ref, bucket, version: randomUUID() });
  const opts = (maxBytes = 64 * MiB) => ({ contentType: 'text/plain', maxBytes });
  const commands = () => sent.map((s) => s.command);
  const objectKeys = async (Prefix = ''): Promise<string[]> => {
    const res = await client.send(new ListObjectsV2Command({ Bucket: S3_BUCKET, Prefix }));
    return (res.Contents ?? []).map((o) => o.Key ?? '');
  };

  async function readAll(body: Readable): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** `total` random bytes in 64 KiB chunks, then optionally an error; the hash of what was sent. */
  function generated(total: number, failWith?: Error): { body: Readable; md5: () => string } {
    const hash = createHash('md5');
    const body = Readable.from(
      (async function* () {
        for (let sentBytes = 0; sentBytes < total; sentBytes += 64 * 1024) {
          const chunk = randomBytes(Math.min(64 * 1024, total - sentBytes));
          hash.update(chunk);
          yield chunk;
        }
        if (failWith) throw failWith;
      })(),
    );
    return { body, md5: () => `"${hash.digest('hex')}"` };
  }

  beforeAll(async () => {
    server = await startS3Server(S3_BUCKET);
    s3Env = server.env;
    client = createS3Client(testConfig(s3Env));
    client.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push({
          command: context.commandName ?? '?',
          input: args.input as Record<string, unknown>,
        });
        return next(args);
      },
      { step: 'initialize', name: 'recordCommands' },
    );
    store = new S3BlobStore({ client, bucket: S3_BUCKET });
  });
  beforeEach(() => {
    sent = [];
  });
  afterAll(async () => {
    client?.destroy();
    await server?.close();
  });

  it('round-trips a small body with one PUT, the version ETag and its content type', async () => {
    const data = Buffer.from('hello, s3');
    const k = key();
    await expect(store.put(k, Readable.from([data]), opts())).resolves.toEqual({
      size: data.length,
      etag: versionEtag(k.version),
    });
    expect(commands()).toEqual(['PutObjectCommand']);
    const got = await store.get(k);
    expect(got.size).toBe(data.length);
    expect(await readAll(got.body)).toEqual(data);
    const head = await client.send(
      new HeadObjectCommand({ Bucket: S3_BUCKET, Key: `${REF}/${hex('avatars')}/${k.version}` }),
    );
    expect(head.ContentType).toBe('text/plain');
  });

  it('reads inclusive ranges and reports the full size', async () => {
    const k = key();
    await store.put(k, Readable.from(['0123456789']), opts());
    const mid = await store.get(k, { start: 2, end: 5 });
    expect(mid.size).toBe(10);
    expect((await readAll(mid.body)).toString()).toBe('2345');
    const last = await store.get(k, { start: 9, end: 9 });
    expect(last.size).toBe(10);
    expect((await readAll(last.body)).toString()).toBe('9');
  });

  it('uploads 20 MiB in 8 MiB parts and reads the same bytes back', async () => {
    const k = key();
    const { body, md5: sentMd5 } = generated(20 * MiB);
    const put = await store.put(k, body, opts());
    expect(put).toEqual({ size: 20 * MiB, etag: versionEtag(k.version) });
    const sent = sentMd5();
    expect(commands().filter((c) => c === 'UploadPartCommand')).toHaveLength(3);
    expect(commands()).toContain('CompleteMultipartUploadCommand');
    expect(commands()).not.toContain('AbortMultipartUploadCommand');

    const got = await store.get(k);
    expect(got.size).toBe(20 * MiB);
    const back = createHash('md5');
    for await (const chunk of got.body) back.update(chunk as Buffer);
    expect(`"${back.digest('hex')}"`).toBe(sent);

    // A range across the first part boundary.
    const whole = await readAll((await store.get(k)).body);
    const span = await store.get(k, { start: 8 * MiB - 3, end: 8 * MiB + 2 });
    expect(await readAll(span.body)).toEqual(whole.subarray(8 * MiB - 3, 8 * MiB + 3));
  });

  it('aborts a multipart upload past maxBytes and leaves no object', async () => {
    const k = key();
    const { body } = generated(20 * MiB);
    await expect(store.put(k, body, opts(12 * MiB))).rejects.toBeInstanceOf(BlobTooLargeError);
    expectAbortedUpload();
    await expect(store.get(k)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('fails a small too-large body before anything is sent', async () => {
    const k = key();
    const body = Readable.from([Buffer.alloc(600), Buffer.alloc(600)]);
    await expect(store.put(k, body, opts(1000))).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(commands()).toEqual([]);
    await expect(store.get(k)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('aborts when the body errors after some parts were uploaded', async () => {
    const k = key();
    const { body } = generated(17 * MiB, new Error('client went away'));
    await expect(store.put(k, body, opts())).rejects.toThrow('client went away');
    expectAbortedUpload();
    await expect(store.get(k)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it.each(['..', '.', 'a/b', '%2e%2e', '../../etc', "A b(c)'.d"])(
    'keeps hostile bucket id %j in one key segment',
    async (bucket) => {
      const ref = randomRef();
      const k = key(bucket, ref);
      await store.put(k, Readable.from([bucket]), opts());
      expect(await objectKeys(`${ref}/`)).toEqual([`${ref}/${hex(bucket)}/${k.version}`]);
      expect((await readAll((await store.get(k)).body)).toString()).toBe(bucket);
      await store.deleteAll(ref, bucket);
      expect(await objectKeys(`${ref}/`)).toEqual([]);
    },
  );

  it.each<[string, Partial<BlobKey>]>([
    ['ref with a slash', { ref: '../abcdefghij0123456' }],
    ['empty bucket', { bucket: '' }],
    ['non-UUID version', { version: '../x' }],
  ])('refuses a %s without a request', async (_what, bad) => {
    const k = { ...key(), ...bad };
    await expect(store.put(k, Readable.from(['x']), opts())).rejects.toBeInstanceOf(
      InvalidBlobKeyError,
    );
    await expect(store.get(k)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.copy(key(), k)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.delete([key(), k])).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.deleteAll('..')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    expect(commands()).toEqual([]);
  });

  it('copies to another bucket, independent of the source; a missing source is not found', async () => {
    const from = key('a');
    const to = key('b');
    await store.put(from, Readable.from(['copied bytes']), opts());
    await store.copy(from, to);
    await store.delete([from]);
    expect((await readAll((await store.get(to)).body)).toString()).toBe('copied bytes');
    await expect(store.copy(from, key())).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.get(from)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('deletes in batches of 1000, ignoring missing keys', async () => {
    const keys = Array.from({ length: 1001 }, () => key());
    await store.put(keys[0], Readable.from(['first']), opts());
    await store.put(keys[1000], Readable.from(['last']), opts());
    sent = [];
    await store.delete(keys);
    expect(sent.filter((s) => s.command === 'DeleteObjectsCommand')).toHaveLength(2);
    await expect(store.get(keys[0])).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.get(keys[1000])).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('deletes a whole bucket or project, and nothing of another', async () => {
    const ref = randomRef();
    const [a1, a2, b, elsewhere] = [key('a', ref), key('a', ref), key('b', ref), key('a')];
    for (const k of [a1, a2, b, elsewhere]) await store.put(k, Readable.from(['x']), opts());

    await store.deleteAll(ref, 'a');
    expect(await objectKeys(`${ref}/`)).toEqual([`${ref}/${hex('b')}/${b.version}`]);
    await store.deleteAll(ref);
    expect(await objectKeys(`${ref}/`)).toEqual([]);
    await expect(store.get(elsewhere)).resolves.toBeDefined();
    await store.deleteAll(ref); // nothing left: not an error
  });

  it('deletes across listing pages', async () => {
    const ref = randomRef();
    // 1,001 objects: two listing pages, two DeleteObjects. Written directly, to keep it fast.
    const keys = Array.from({ length: 1001 }, () => `${ref}/${hex('many')}/${randomUUID()}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(
        keys
          .slice(i, i + 50)
          .map((Key) => client.send(new PutObjectCommand({ Bucket: S3_BUCKET, Key, Body: 'x' }))),
      );
    }
    sent = [];
    await store.deleteAll(ref, 'many');
    expect(sent.filter((s) => s.command === 'DeleteObjectsCommand')).toHaveLength(2);
    expect(await objectKeys(`${ref}/`)).toEqual([]);
  });

  describe('createBlobStore', () => {
    it('builds an S3 store whose client defaults work against an S3-compatible server', async () => {
      const fromConfig = createBlobStore(testConfig(s3Env));
      expect(fromConfig).toBeInstanceOf(S3BlobStore);
      const k = key();
      const { body, md5: sentMd5 } = generated(9 * MiB);
      const put = await fromConfig.put(k, body, opts());
      expect(put).toEqual({ size: 9 * MiB, etag: versionEtag(k.version) });
      expect(sentMd5()).toMatch(/^"[0-9a-f]{32}"$/);
      await fromConfig.delete([k]);
    });

    it('refuses the s3 driver without a bucket or with half the credentials', () => {
      expect(() => createBlobStore(testConfig({ ...s3Env, STORAGE_S3_BUCKET: '' }))).toThrow(
        new ConfigError('STORAGE_S3_BUCKET', 'is required when STORAGE_DRIVER=s3'),
      );
      expect(() =>
        createBlobStore(testConfig({ ...s3Env, STORAGE_S3_SECRET_ACCESS_KEY: '' })),
      ).toThrow(/STORAGE_S3_SECRET_ACCESS_KEY is required/);
    });

    it('defaults to the fs driver', () => {
      expect(createBlobStore(testConfig())).toBeInstanceOf(FsBlobStore);
    });
  });

  function expectAbortedUpload(): void {
    const created = sent.filter((s) => s.command === 'CreateMultipartUploadCommand');
    expect(created).toHaveLength(1);
    const aborts = sent.filter((s) => s.command === 'AbortMultipartUploadCommand');
    expect(aborts).toHaveLength(1);
    expect(aborts[0].input.Key).toBe(created[0].input.Key);
    expect(aborts[0].input.UploadId).toEqual(expect.any(String));
    expect(commands()).not.toContain('CompleteMultipartUploadCommand');
  }
});

function hex(bucket: string): string {
  return Buffer.from(bucket).toString('hex');
}

function randomRef(): string {
  return randomBytes(10).toString('hex');
}
