import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { InvalidBlobKeyError, versionEtag } from './blob-key';
import { BlobKey, BlobNotFoundError, BlobTooLargeError } from './blob-store';
import { FsBlobStore } from './fs-blob-store';

const REF = 'abcdefghij0123456789';
const MiB = 1024 * 1024;
const opts = (maxBytes = 10 * MiB) => ({ contentType: 'application/octet-stream', maxBytes });
const key = (bucket = 'avatars', ref = REF): BlobKey => ({ ref, bucket, version: randomUUID() });

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every file under `dir`, relative to it (temp files included). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

/** A body that sends `chunks` chunks of 64 KiB then fails. */
function failingBody(chunks: number): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < chunks; i++) yield Buffer.alloc(64 * 1024, i);
      throw new Error('client went away');
    })(),
  );
}

describe('FsBlobStore', () => {
  let root: string;
  let store: FsBlobStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'bp-blob-'));
    store = new FsBlobStore(join(root, 'storage'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('round-trips bytes with the version ETag and private permissions', async () => {
    const data = Buffer.from('hello, blob store');
    const k = key();
    await expect(store.put(k, Readable.from([data]), opts())).resolves.toEqual({
      size: data.length,
      etag: versionEtag(k.version),
    });
    const got = await store.get(k);
    expect(got.size).toBe(data.length);
    expect(await readAll(got.body)).toEqual(data);

    const [file] = await filesUnder(join(root, 'storage'));
    expect(file).toBe([REF, Buffer.from('avatars').toString('hex'), k.version].join(sep));
    const path = join(root, 'storage', file);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(path, '..'))).mode & 0o077).toBe(0);
  });

  it('stores an empty body', async () => {
    const k = key();
    await expect(store.put(k, Readable.from([]), opts())).resolves.toEqual({
      size: 0,
      etag: versionEtag(k.version),
    });
    expect((await readAll((await store.get(k)).body)).length).toBe(0);
  });

  it('reads inclusive ranges and reports the full size', async () => {
    const data = Buffer.from('0123456789');
    const k = key();
    await store.put(k, Readable.from([data]), opts());
    const mid = await store.get(k, { start: 2, end: 5 });
    expect(mid.size).toBe(10);
    expect((await readAll(mid.body)).toString()).toBe('2345');
    const last = await store.get(k, { start: 9, end: 9 });
    expect((await readAll(last.body)).toString()).toBe('9');
  });

  it('fails with BlobTooLargeError past maxBytes and leaves no file, temp or final', async () => {
    const k = key();
    // Never ends on its own: the too-large check, not the end of the body, stops the write.
    const body = new Readable({ read: () => body.push(Buffer.alloc(600)) });
    await expect(store.put(k, body, opts(1000))).rejects.toBeInstanceOf(BlobTooLargeError);
    await expect(store.get(k)).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await filesUnder(join(root, 'storage'))).toEqual([]);
    // The body is the caller's: it is unpiped, not destroyed (the HTTP layer still answers 413).
    expect(body.destroyed).toBe(false);
  });

  it('accepts exactly maxBytes', async () => {
    const k = key();
    await expect(store.put(k, Readable.from([Buffer.alloc(1000)]), opts(1000))).resolves.toEqual(
      expect.objectContaining({ size: 1000 }),
    );
  });

  it('rejects with the body error midway and leaves nothing', async () => {
    const k = key();
    await expect(store.put(k, failingBody(20), opts())).rejects.toThrow('client went away');
    expect(await filesUnder(join(root, 'storage'))).toEqual([]);
  });

  it('rejects a body that closes before its end', async () => {
    let reads = 0;
    const body = new Readable({
      read() {
        if (reads++ === 0) this.push(Buffer.alloc(100));
        else this.destroy();
      },
    });
    await expect(store.put(key(), body, opts())).rejects.toThrow(/premature close/i);
    expect(await filesUnder(join(root, 'storage'))).toEqual([]);
  });

  it.each(['..', '.', 'a/b', '%2e%2e', '../../etc', '..\\..', "A b(c)'.d"])(
    'keeps hostile bucket id %j in one segment under the root',
    async (bucket) => {
      const k = key(bucket);
      const data = Buffer.from(bucket);
      await store.put(k, Readable.from([data]), opts());
      expect(await filesUnder(join(root, 'storage'))).toEqual([
        [REF, Buffer.from(bucket).toString('hex'), k.version].join(sep),
      ]);
      expect(await readAll((await store.get(k)).body)).toEqual(data);
      await store.deleteAll(REF, bucket);
      expect(await filesUnder(root)).toEqual([]);
    },
  );

  it('maps bucket ids that differ only in case to different directories', async () => {
    const upper = { ...key('Photos'), version: randomUUID() };
    const lower = { ...upper, bucket: 'photos' };
    await store.put(upper, Readable.from(['upper']), opts());
    await store.put(lower, Readable.from(['lower']), opts());
    expect((await readAll((await store.get(upper)).body)).toString()).toBe('upper');
    expect((await readAll((await store.get(lower)).body)).toString()).toBe('lower');
  });

  it.each<[string, Partial<BlobKey>]>([
    ['ref with a slash', { ref: '../abcdefghij0123456' }],
    ['short ref', { ref: 'abc' }],
    ['uppercase ref', { ref: 'ABCDEFGHIJ0123456789' }],
    ['empty bucket', { bucket: '' }],
    ['huge bucket', { bucket: 'x'.repeat(128) }],
    ['dot-dot version', { version: '..' }],
    ['non-UUID version', { version: 'v1' }],
    ['uppercase UUID', { version: randomUUID().toUpperCase() }],
  ])('refuses a %s everywhere, writing nothing', async (_what, bad) => {
    const k = { ...key(), ...bad };
    await expect(store.put(k, Readable.from(['x']), opts())).rejects.toBeInstanceOf(
      InvalidBlobKeyError,
    );
    await expect(store.get(k)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.copy(key(), k)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.delete([k])).rejects.toBeInstanceOf(InvalidBlobKeyError);
    expect(await filesUnder(root)).toEqual([]);
  });

  it('refuses an invalid ref in deleteAll', async () => {
    await expect(store.deleteAll('..')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.deleteAll('')).rejects.toBeInstanceOf(InvalidBlobKeyError);
  });

  it('raises BlobNotFoundError for a missing version, bucket or project', async () => {
    await expect(store.get(key())).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.copy(key(), key())).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await filesUnder(root)).toEqual([]);
  });

  it('copies to another bucket and version, independent of the source', async () => {
    const from = key('a');
    const to = key('b');
    await store.put(from, Readable.from(['copied bytes']), opts());
    await store.copy(from, to);
    await store.delete([from]);
    expect((await readAll((await store.get(to)).body)).toString()).toBe('copied bytes');
    expect((await filesUnder(join(root, 'storage'))).some((f) => f.includes('.tmp-'))).toBe(false);
  });

  it('deletes versions, ignoring missing ones', async () => {
    const a = key();
    const b = key();
    await store.put(a, Readable.from(['a']), opts());
    await store.put(b, Readable.from(['b']), opts());
    await store.delete([a, key(), key('never-created')]);
    await expect(store.get(a)).rejects.toBeInstanceOf(BlobNotFoundError);
    expect((await readAll((await store.get(b)).body)).toString()).toBe('b');
    await store.delete([]);
  });

  it('deletes a whole bucket or project and nothing of another', async () => {
    const other = 'zyxwvutsrq9876543210';
    const keys = [key('a'), key('a'), key('b'), key('a', other)];
    for (const k of keys) await store.put(k, Readable.from(['x']), opts());

    await store.deleteAll(REF, 'a');
    await expect(store.get(keys[0])).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.get(keys[1])).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.get(keys[2])).resolves.toBeDefined();

    await store.deleteAll(REF);
    await expect(store.get(keys[2])).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.get(keys[3])).resolves.toBeDefined();
    await store.deleteAll(REF); // already gone: not an error
  });

  it('streams 200 MB in and out with flat memory', async () => {
    const total = 200 * MiB;
    const chunk = 64 * 1024;
    const expected = createHash('md5');
    const rss = { base: process.memoryUsage().rss, peak: 0 };
    const sample = () => (rss.peak = Math.max(rss.peak, process.memoryUsage().rss));
    const body = Readable.from(
      (async function* () {
        for (let i = 0; i < total / chunk; i++) {
          const data = Buffer.alloc(chunk, i % 251);
          expected.update(data);
          if (i % 64 === 0) sample();
          yield data;
        }
      })(),
    );
    const k = key();
    const put = await store.put(k, body, opts(total));
    expect(put).toEqual({ size: total, etag: versionEtag(k.version) });
    const sent = expected.digest('hex');

    const got = await store.get(k);
    const actual = createHash('md5');
    let n = 0;
    for await (const data of got.body) {
      actual.update(data as Buffer);
      if (n++ % 64 === 0) sample();
    }
    expect(actual.digest('hex')).toBe(sent);
    const growthMiB = (rss.peak - rss.base) / MiB;
    // Buffering the whole body would add 200 MiB; streaming stays within a few chunks plus GC lag.
    expect(growthMiB).toBeLessThan(64);

    await store.delete([k]);
    expect(await filesUnder(join(root, 'storage'))).toEqual([]);
  });
});
