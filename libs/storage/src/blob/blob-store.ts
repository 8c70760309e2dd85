import type { Readable } from 'node:stream';

/**
 * Where one stored version of an object's bytes lives. Objects are addressed by version, not
 * by name: an upload writes a new version and the metadata row then points at it, so a
 * replaced file's readers keep their bytes and a failed upload leaves nothing behind. The
 * name never becomes a file system path or an S3 key (only ref, bucket and version do).
 */
export interface BlobKey {
  /** Project ref (20 lowercase letters and digits). */
  ref: string;
  /** Bucket id, validated by `validateBucketId`. */
  bucket: string;
  /** Version id: a UUID chosen by the platform. */
  version: string;
}

export interface PutOptions {
  contentType: string;
  /** Bytes allowed; the write stops and fails with BlobTooLargeError past it. */
  maxBytes: number;
}

export interface PutResult {
  size: number;
  /** Quoted strong ETag: the version id as 32 hex digits (see versionEtag). */
  etag: string;
}

/** An inclusive byte range, already checked against the size. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface GetResult {
  body: Readable;
  /** The full size of the blob (not of the range). */
  size: number;
}

/**
 * The bytes of stored files. Implementations stream both ways: memory stays flat whatever
 * the size. A put is atomic (temporary file renamed into place; S3 upload completed only
 * when whole): on any failure, including the body stream erroring or exceeding `maxBytes`,
 * nothing is left at `key`.
 */
export interface BlobStore {
  put(key: BlobKey, body: Readable, options: PutOptions): Promise<PutResult>;
  /** The bytes (or the range of them); BlobNotFoundError when missing. */
  get(key: BlobKey, range?: ByteRange): Promise<GetResult>;
  /** Copies a version to another key (another bucket or version). */
  copy(from: BlobKey, to: BlobKey): Promise<void>;
  /** Deletes versions; missing ones are ignored. */
  delete(keys: readonly BlobKey[]): Promise<void>;
  /** Deletes everything of a bucket (`bucket` given) or of a whole project. */
  deleteAll(ref: string, bucket?: string): Promise<void>;
}

export class BlobNotFoundError extends Error {
  constructor(key: BlobKey) {
    super(`Blob ${key.ref}/${key.bucket}/${key.version} not found`);
    this.name = 'BlobNotFoundError';
  }
}

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The object exceeded the maximum allowed size of ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}
