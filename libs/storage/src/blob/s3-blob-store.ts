import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  GetObjectCommandOutput,
  ListObjectsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { assertRef, encodeBucket, keySegments, versionEtag } from './blob-key';
import {
  BlobKey,
  BlobNotFoundError,
  BlobStore,
  ByteRange,
  GetResult,
  PutOptions,
  PutResult,
} from './blob-store';
import { meterBody } from './metered-stream';

export interface S3BlobStoreOptions {
  client: S3Client;
  /** The one S3 bucket holding every project's files. */
  bucket: string;
}

/** Multipart part size: memory per upload is about (queue size + 1) parts. */
const S3_PART_SIZE = 8 * 1024 * 1024;
const S3_QUEUE_SIZE = 2;
/** DeleteObjects takes at most 1,000 keys per request. */
const S3_DELETE_BATCH = 1000;

/**
 * Blobs as S3 objects keyed `<ref>/<hex bucket>/<version>` (the same segments as the fs layout,
 * all `[a-z0-9-]`, so keys never need escaping).
 *
 * Atomicity comes from S3 itself: an object appears only when its single PUT or its
 * CompleteMultipartUpload succeeds. On any failure the multipart upload is aborted
 * (lib-storage's `leavePartsOnError: false`); if the abort itself fails its parts stay billed
 * but invisible, so production buckets should also carry an AbortIncompleteMultipartUpload
 * lifecycle rule.
 *
 * Limit: `copy` uses CopyObject, which S3 caps at 5 GB per source object; larger objects need a
 * multipart copy (UploadPartCopy), not implemented.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(options: S3BlobStoreOptions) {
    this.client = options.client;
    this.bucket = options.bucket;
  }

  async put(key: BlobKey, body: Readable, options: PutOptions): Promise<PutResult> {
    const Key = objectKey(key);
    const metered = meterBody(body, options.maxBytes);
    try {
      const upload = new Upload({
        client: this.client,
        params: {
          Bucket: this.bucket,
          Key,
          Body: metered.stream,
          ContentType: options.contentType,
        },
        partSize: S3_PART_SIZE,
        queueSize: S3_QUEUE_SIZE,
        leavePartsOnError: false,
      });
      await upload.done();
    } catch (e) {
      // When the meter failed (too large, body error) that is the cause; Upload may instead
      // report a failed abort of the multipart upload it then attempted.
      if (metered.stream.errored) throw metered.stream.errored;
      // Otherwise S3 itself failed, possibly after completing the object (a lost response):
      // the version is ours alone, so removing it keeps "nothing is left at key".
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key })).catch(() => {});
      throw e;
    } finally {
      metered.release();
    }
    return { size: metered.stream.byteCount, etag: versionEtag(key.version) };
  }

  async get(key: BlobKey, range?: ByteRange): Promise<GetResult> {
    let res: GetObjectCommandOutput;
    try {
      res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: objectKey(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
    } catch (e) {
      if (isNoSuchKey(e)) throw new BlobNotFoundError(key);
      throw e;
    }
    const body = res.Body;
    if (!(body instanceof Readable)) throw new Error('S3 returned no readable body');
    const size = range ? totalFromContentRange(res.ContentRange) : res.ContentLength;
    if (size === undefined) {
      body.destroy();
      throw new Error(`S3 answered ${range ? 'a range without Content-Range' : 'no length'}`);
    }
    return { body, size };
  }

  async copy(from: BlobKey, to: BlobKey): Promise<void> {
    const CopySource = `${encodeURIComponent(this.bucket)}/${objectKey(from)}`;
    try {
      await this.client.send(
        new CopyObjectCommand({ Bucket: this.bucket, Key: objectKey(to), CopySource }),
      );
    } catch (e) {
      if (isNoSuchKey(e)) throw new BlobNotFoundError(from);
      throw e;
    }
  }

  async delete(keys: readonly BlobKey[]): Promise<void> {
    // Every key is checked before anything is removed: one bad key deletes nothing.
    const objectKeys = keys.map(objectKey);
    for (let i = 0; i < objectKeys.length; i += S3_DELETE_BATCH) {
      await this.deleteBatch(objectKeys.slice(i, i + S3_DELETE_BATCH));
    }
  }

  async deleteAll(ref: string, bucket?: string): Promise<void> {
    assertRef(ref);
    const Prefix = bucket === undefined ? `${ref}/` : `${ref}/${encodeBucket(bucket)}/`;
    // Each listing's first page (at most 1,000 keys) is deleted, then the prefix is listed
    // again until it is empty: no continuation token or marker is needed (ListObjects V1, as
    // some S3-compatible servers mishandle V2 tokens), and deleteBatch throws on any refusal,
    // so the loop always advances.
    for (;;) {
      const page = await this.client.send(
        new ListObjectsCommand({ Bucket: this.bucket, Prefix, MaxKeys: 1000 }),
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
      if (keys.length === 0) return;
      await this.deleteBatch(keys);
    }
  }

  private async deleteBatch(keys: string[]): Promise<void> {
    const res = await this.client.send(
      new DeleteObjectsCommand({
        Bucket: this.bucket,
        // Quiet: only failures come back. Missing keys are not failures in S3.
        Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
      }),
    );
    const failed = res.Errors ?? [];
    if (failed.length > 0) {
      const first = failed[0];
      throw new Error(
        `S3 refused to delete ${failed.length} object(s), first ${first.Key}: ${first.Code} ${first.Message}`,
      );
    }
  }
}

function objectKey(key: BlobKey): string {
  return keySegments(key).join('/');
}

/** NoSuchKey, or a bare 404 (HEAD-style answers) unless it names a missing S3 bucket. */
function isNoSuchKey(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { name, $metadata } = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || ($metadata?.httpStatusCode === 404 && name !== 'NoSuchBucket');
}

/** The total of `bytes <start>-<end>/<total>`. */
function totalFromContentRange(header: string | undefined): number | undefined {
  const match = header ? /\/(\d+)\s*$/.exec(header) : null;
  return match ? Number(match[1]) : undefined;
}
