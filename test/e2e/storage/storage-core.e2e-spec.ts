import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join, sep } from 'node:path';
import { ListObjectsCommand, type S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '@baseplate/storage';
import { startS3Server, type TestS3Server } from '../../support/s3';
import { Readable } from 'node:stream';
import { request } from '../../support/http';
import { clientFor, type Client } from '../rest/compat/supabase-client';
import { bootRestFixture, type RestFixture } from '../rest/fixture';

const text = (blob: Blob | null) => blob!.text();

/** The status of a request whose path is sent exactly as written. */
function rawStatusAt(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
) {
  const url = new URL(base);
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path: `${url.pathname}${path}`, headers },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Storage with supabase-js and over plain HTTP: buckets, uploads of every body kind, downloads,
 * listings, removal, move and copy, signed download and upload URLs, public URLs, info/exists,
 * and the spec's raw forms (multipart POST, GET list?prefix=, public GET, DELETE).
 */
describe.each(['fs', 's3'] as const)('storage with supabase-js (%s driver)', (driver) => {
  let f: RestFixture;
  let sb: Client;
  let s3: TestS3Server | undefined;
  let s3Client: S3Client | undefined;
  /** Every stored blob of this project: files under STORAGE_DIR, or keys in the S3 bucket. */
  const storedBlobs = async (): Promise<string[]> => {
    if (s3Client && s3) {
      const res = await s3Client.send(
        new ListObjectsCommand({ Bucket: s3.bucket, Prefix: `${f.project.ref}/` }),
      );
      return (res.Contents ?? []).map((o) => o.Key!.slice(f.project.ref.length + 1));
    }
    const root = join(f.platform.config.storageDir, f.project.ref);
    return existsSync(root)
      ? (readdirSync(root, { recursive: true }) as string[])
          .filter((p) => p.includes('/') || p.includes(sep))
          .filter((p) => !statSync(join(root, p)).isDirectory())
      : [];
  };
  const hex = (bucket: string) => Buffer.from(bucket).toString('hex');
  const storageUrl = () => `${f.platform.data}/projects/${f.project.ref}/storage/v1`;
  const rawStatus = (method: string, path: string, headers: Record<string, string>, body: string) =>
    rawStatusAt(storageUrl(), method, path, headers, body);

  beforeAll(async () => {
    if (driver === 's3') {
      s3 = await startS3Server();
      f = await bootRestFixture('', s3.env);
      s3Client = createS3Client(f.platform.config);
    } else {
      f = await bootRestFixture();
    }
    sb = clientFor(f, 'service');
  });
  afterAll(async () => {
    await f?.platform.close();
    s3Client?.destroy();
    await s3?.close();
  });

  it('creates, reads, lists, updates, empties and deletes buckets', async () => {
    const created = await sb.storage.createBucket('docs', {
      public: false,
      fileSizeLimit: '1MB',
      allowedMimeTypes: ['text/*', 'application/json'],
    });
    expect(created).toEqual({ data: { name: 'docs' }, error: null });
    const again = await sb.storage.createBucket('docs');
    expect(again.error).toMatchObject({ statusCode: '409' });

    const got = await sb.storage.getBucket('docs');
    expect(got.data).toMatchObject({
      id: 'docs',
      name: 'docs',
      public: false,
      file_size_limit: 1024 * 1024,
      allowed_mime_types: ['text/*', 'application/json'],
    });
    const listed = await sb.storage.listBuckets();
    expect(listed.data?.map((b) => b.id)).toContain('docs');

    const updated = await sb.storage.updateBucket('docs', { public: true, fileSizeLimit: 2048 });
    expect(updated.error).toBeNull();
    expect((await sb.storage.getBucket('docs')).data).toMatchObject({
      public: true,
      file_size_limit: 2048,
    });

    await sb.storage.from('docs').upload('a.txt', 'hello', { contentType: 'text/plain' });
    const refused = await sb.storage.deleteBucket('docs');
    expect(refused.error).toMatchObject({ statusCode: '409' });
    expect((await sb.storage.emptyBucket('docs')).error).toBeNull();
    expect((await sb.storage.from('docs').list()).data).toEqual([]);
    expect((await sb.storage.deleteBucket('docs')).error).toBeNull();
    const gone = await sb.storage.getBucket('docs');
    expect(gone.error).toMatchObject({ statusCode: '404' });
  });

  it('uploads Blobs, Buffers and streams, and downloads them byte for byte', async () => {
    await sb.storage.createBucket('files');
    const bucket = sb.storage.from('files');

    const blob = await bucket.upload(
      'folder/blob.txt',
      new Blob(['from a blob'], { type: 'text/plain' }),
    );
    expect(blob.error).toBeNull();
    expect(blob.data).toMatchObject({ path: 'folder/blob.txt', fullPath: 'files/folder/blob.txt' });
    expect(blob.data?.id).toEqual(expect.any(String));

    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    const buf = await bucket.upload('folder/bytes.bin', bytes, {
      contentType: 'application/octet-stream',
    });
    expect(buf.error).toBeNull();

    const stream = await bucket.upload(
      'stream.txt',
      Readable.toWeb(Readable.from(['streamed ', 'in ', 'parts'])) as unknown as ReadableStream,
      { contentType: 'text/plain', duplex: 'half' },
    );
    expect(stream.error).toBeNull();

    expect(await text((await bucket.download('folder/blob.txt')).data)).toBe('from a blob');
    expect(await text((await bucket.download('stream.txt')).data)).toBe('streamed in parts');
    const back = Buffer.from(await (await bucket.download('folder/bytes.bin')).data!.arrayBuffer());
    expect(createHash('md5').update(back).digest('hex')).toBe(
      createHash('md5').update(bytes).digest('hex'),
    );

    // An existing name is a 409 unless upsert; update replaces.
    const dup = await bucket.upload('stream.txt', 'x', { contentType: 'text/plain' });
    expect(dup.error).toMatchObject({ statusCode: '409' });
    expect(
      (await bucket.upload('stream.txt', 'upserted', { contentType: 'text/plain', upsert: true }))
        .error,
    ).toBeNull();
    expect(await text((await bucket.download('stream.txt')).data)).toBe('upserted');
    expect(
      (await bucket.update('stream.txt', 'updated', { contentType: 'text/plain' })).error,
    ).toBeNull();
    expect(await text((await bucket.download('stream.txt')).data)).toBe('updated');
    const missing = await bucket.update('nope.txt', 'x', { contentType: 'text/plain' });
    expect(missing.error).toMatchObject({ statusCode: '404' });
  });

  it('lists one level with folders, paging, search and sorting', async () => {
    await sb.storage.createBucket('tree');
    const bucket = sb.storage.from('tree');
    for (const name of ['a/1.txt', 'a/2.txt', 'a/sub/3.txt', 'b.txt', 'c.txt', 'a.txt']) {
      expect((await bucket.upload(name, name, { contentType: 'text/plain' })).error).toBeNull();
    }
    const top = await bucket.list();
    expect(top.data?.map((e) => [e.name, e.id === null])).toEqual([
      ['a', true],
      ['a.txt', false],
      ['b.txt', false],
      ['c.txt', false],
    ]);
    expect(top.data?.[1]?.metadata).toMatchObject({ size: 5, mimetype: 'text/plain' });
    const inA = await bucket.list('a');
    expect(inA.data?.map((e) => e.name)).toEqual(['1.txt', '2.txt', 'sub']);
    const page = await bucket.list('', { limit: 2, offset: 1 });
    expect(page.data?.map((e) => e.name)).toEqual(['a.txt', 'b.txt']);
    const searched = await bucket.list('', { search: 'c' });
    expect(searched.data?.map((e) => e.name)).toEqual(['c.txt']);
    const desc = await bucket.list('a', { sortBy: { column: 'name', order: 'desc' } });
    expect(desc.data?.map((e) => e.name)).toEqual(['sub', '2.txt', '1.txt']);

    // The spec's form: GET /object/list/<bucket>?prefix=
    const raw = await request(storageUrl(), 'GET', '/object/list/tree?prefix=a/sub', {
      headers: { apikey: f.project.serviceKey, authorization: `Bearer ${f.project.serviceKey}` },
    });
    expect(raw.status).toBe(200);
    expect((raw.body as { name: string }[]).map((e) => e.name)).toEqual(['3.txt']);
  });

  it('removes in bulk, moves and copies within and across buckets, and reports info', async () => {
    await sb.storage.createBucket('src');
    await sb.storage.createBucket('dst');
    const src = sb.storage.from('src');
    for (const name of ['one.txt', 'two.txt', 'three.txt'])
      await src.upload(name, name, { contentType: 'text/plain' });

    const removed = await src.remove(['one.txt', 'two.txt', 'absent.txt']);
    expect(removed.error).toBeNull();
    expect(removed.data?.map((o) => o.name).sort()).toEqual(['one.txt', 'two.txt']);
    expect((await src.download('one.txt')).error).toMatchObject({ status: 404 });

    expect((await src.move('three.txt', 'moved/three.txt')).error).toBeNull();
    expect(await text((await src.download('moved/three.txt')).data)).toBe('three.txt');
    expect((await src.exists('three.txt')).data).toBe(false);

    const copied = await src.copy('moved/three.txt', 'copy.txt', { destinationBucket: 'dst' });
    expect(copied.error).toBeNull();
    expect(copied.data).toEqual({ path: 'dst/copy.txt' });
    expect(await text((await sb.storage.from('dst').download('copy.txt')).data)).toBe('three.txt');

    expect(
      (await src.move('moved/three.txt', 'across.txt', { destinationBucket: 'dst' })).error,
    ).toBeNull();
    expect(await text((await sb.storage.from('dst').download('across.txt')).data)).toBe(
      'three.txt',
    );
    expect((await src.exists('moved/three.txt')).data).toBe(false);

    const info = await sb.storage.from('dst').info('copy.txt');
    expect(info.error).toBeNull();
    expect(info.data).toMatchObject({
      name: 'copy.txt',
      bucketId: 'dst',
      size: 9,
      contentType: 'text/plain',
    });
    expect((await sb.storage.from('dst').exists('copy.txt')).data).toBe(true);
  });

  it('serves signed download URLs and signed uploads, refusing tampered or expired tokens', async () => {
    await sb.storage.createBucket('private');
    const bucket = sb.storage.from('private');
    await bucket.upload('report.txt', 'secret report', { contentType: 'text/plain' });

    const signed = await bucket.createSignedUrl('report.txt', 60);
    expect(signed.error).toBeNull();
    const res = await fetch(signed.data!.signedUrl);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('secret report');

    const asFile = await fetch(`${signed.data!.signedUrl}&download=r%C3%A9port.txt`);
    expect(asFile.headers.get('content-disposition')).toContain("filename*=UTF-8''r%C3%A9port.txt");

    const tampered = await fetch(
      signed.data!.signedUrl.replace(
        /token=([^&]+)/,
        (_m, t: string) => `token=${t.slice(0, -2)}xx`,
      ),
    );
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toMatchObject({ statusCode: '400', error: 'InvalidJWT' });
    const otherObject = await fetch(signed.data!.signedUrl.replace('report.txt', 'other.txt'));
    expect(otherObject.status).toBe(400);

    const shortLived = await bucket.createSignedUrl('report.txt', 1);
    await new Promise((r) => setTimeout(r, 2100));
    const expired = await fetch(shortLived.data!.signedUrl);
    expect(expired.status).toBe(400);
    expect(await expired.json()).toMatchObject({ error: 'InvalidJWT', message: 'jwt expired' });

    const many = await bucket.createSignedUrls(['report.txt', 'missing.txt'], 60);
    expect(many.data?.[0]).toMatchObject({ path: 'report.txt', error: null });
    expect(many.data?.[1]).toMatchObject({ path: 'missing.txt', signedUrl: null });

    const upload = await bucket.createSignedUploadUrl('incoming/drop.txt');
    expect(upload.error).toBeNull();
    const put = await sb.storage
      .from('private')
      .uploadToSignedUrl(
        'incoming/drop.txt',
        upload.data!.token,
        new Blob(['dropped'], { type: 'text/plain' }),
      );
    expect(put.error).toBeNull();
    expect(await text((await bucket.download('incoming/drop.txt')).data)).toBe('dropped');
    // The token is for that path only.
    const elsewhere = await sb.storage
      .from('private')
      .uploadToSignedUrl(
        'incoming/other.txt',
        upload.data!.token,
        new Blob(['x'], { type: 'text/plain' }),
      );
    expect(elsewhere.error).toMatchObject({ statusCode: '400' });
  });

  it('serves public buckets without any header, with ranges, ETags and cache headers', async () => {
    await sb.storage.createBucket('pub', { public: true });
    const bucket = sb.storage.from('pub');
    await bucket.upload('img/logo.txt', '0123456789', {
      contentType: 'text/plain',
      cacheControl: '120',
    });
    const { publicUrl } = bucket.getPublicUrl('img/logo.txt').data;

    const whole = await fetch(publicUrl);
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe('0123456789');
    expect(whole.headers.get('content-type')).toBe('text/plain');
    expect(whole.headers.get('cache-control')).toBe('max-age=120');
    const etag = whole.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);

    const part = await fetch(publicUrl, { headers: { range: 'bytes=2-5' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(await part.text()).toBe('2345');
    const tail = await fetch(publicUrl, { headers: { range: 'bytes=-3' } });
    expect(await tail.text()).toBe('789');
    const beyond = await fetch(publicUrl, { headers: { range: 'bytes=50-60' } });
    expect(beyond.status).toBe(416);

    const cached = await fetch(publicUrl, { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    const head = await fetch(publicUrl, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, '10']);

    // A private bucket's object is not public.
    await sb.storage.createBucket('closed');
    await sb.storage.from('closed').upload('x.txt', 'x', { contentType: 'text/plain' });
    const closed = await fetch(`${storageUrl()}/object/public/closed/x.txt`);
    expect(closed.status).toBe(404);
    expect(await closed.json()).toMatchObject({ statusCode: '404', error: 'not_found' });
  });

  it('accepts the spec raw forms: multipart POST, public GET, DELETE', async () => {
    await sb.storage.createBucket('raw', { public: true });
    const form = new FormData();
    form.append('cacheControl', '60');
    form.append('metadata', JSON.stringify({ purpose: 'spec' }));
    form.append('', new Blob(['multipart body'], { type: 'text/markdown' }), 'notes.md');
    const headers = {
      apikey: f.project.serviceKey,
      authorization: `Bearer ${f.project.serviceKey}`,
    };
    const up = await fetch(`${storageUrl()}/object/raw/docs/notes.md`, {
      method: 'POST',
      headers,
      body: form,
    });
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ Id: expect.any(String), Key: 'raw/docs/notes.md' });

    const get = await fetch(`${storageUrl()}/object/public/raw/docs/notes.md`);
    expect([get.status, await get.text(), get.headers.get('content-type')]).toEqual([
      200,
      'multipart body',
      'text/markdown',
    ]);
    const info = await sb.storage.from('raw').info('docs/notes.md');
    expect(info.data?.metadata).toEqual({ purpose: 'spec' });

    const del = await fetch(`${storageUrl()}/object/raw/docs/notes.md`, {
      method: 'DELETE',
      headers,
    });
    expect(del.status).toBe(200);
    expect((await fetch(`${storageUrl()}/object/public/raw/docs/notes.md`)).status).toBe(404);
    const again = await fetch(`${storageUrl()}/object/raw/docs/notes.md`, {
      method: 'DELETE',
      headers,
    });
    expect(again.status).toBe(404);
  });

  it('enforces size and MIME limits and rejects unsafe names', async () => {
    await sb.storage.createBucket('limited', {
      public: false,
      fileSizeLimit: 10,
      allowedMimeTypes: ['image/*'],
    });
    const bucket = sb.storage.from('limited');
    const big = await bucket.upload('big.png', Buffer.alloc(11), { contentType: 'image/png' });
    expect(big.error).toMatchObject({ statusCode: '413' });
    const wrongType = await bucket.upload('doc.txt', 'x', { contentType: 'text/plain' });
    expect(wrongType.error).toMatchObject({ statusCode: '415' });
    expect(
      (await bucket.upload('ok.png', Buffer.alloc(10), { contentType: 'image/png' })).error,
    ).toBeNull();
    expect((await bucket.list()).data?.map((e) => e.name)).toEqual(['ok.png']);

    const headers = {
      apikey: f.project.serviceKey,
      authorization: `Bearer ${f.project.serviceKey}`,
      'content-type': 'image/png',
    };
    // Sent byte for byte (fetch would resolve the dot segments before sending).
    for (const name of [
      'a/../../etc/passwd',
      '..%2F..%2Fx',
      'a/%2e%2e/b',
      'x%00y',
      'a%5Cb',
      '%2F%2F',
    ]) {
      const status = await rawStatus('POST', `/object/limited/${name}`, headers, 'x');
      expect([name, status]).toEqual([name, 400]);
    }
    // Nothing but the one accepted file was stored (no temporary files, nothing elsewhere).
    const blobs = await storedBlobs();
    expect(blobs.filter((b) => b.startsWith(hex('limited')))).toHaveLength(1);
    expect(blobs.some((b) => b.includes('tmp'))).toBe(false);

    // A large refused body is not read to its end: 413 at once, and the connection closed.
    const large = await new Promise<{ status: number; connection: string | undefined }>(
      (resolve, reject) => {
        const url = new URL(`${storageUrl()}/object/limited/huge.png`);
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            method: 'POST',
            path: url.pathname,
            headers: {
              ...headers,
              'content-length': String(64 * 1024 * 1024),
            },
          },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
            req.destroy();
          },
        );
        req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
        const chunk = Buffer.alloc(64 * 1024);
        const pump = () => {
          while (!req.destroyed && req.write(chunk));
          if (!req.destroyed) req.once('drain', pump);
        };
        pump();
      },
    );
    expect(large).toEqual({ status: 413, connection: 'close' });

    // Moving or copying into the bucket must pass its limits too.
    await sb.storage.createBucket('loose');
    await sb.storage.from('loose').upload('page.html', '<b>x</b>', { contentType: 'text/html' });
    await sb.storage
      .from('loose')
      .upload('big.png', Buffer.alloc(50), { contentType: 'image/png' });
    const copiedHtml = await sb.storage
      .from('loose')
      .copy('page.html', 'page.html', { destinationBucket: 'limited' });
    expect(copiedHtml.error).toMatchObject({ statusCode: '415' });
    const movedBig = await sb.storage
      .from('loose')
      .move('big.png', 'big.png', { destinationBucket: 'limited' });
    expect(movedBig.error).toMatchObject({ statusCode: '413' });
    expect((await sb.storage.from('loose').exists('big.png')).data).toBe(true);

    const badBucket = await sb.storage.createBucket('../escape');
    expect(badBucket.error).toMatchObject({ statusCode: '400' });
  });
});
