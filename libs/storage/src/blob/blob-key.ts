import type { BlobKey } from './blob-store';

const REF = /^[a-z0-9]{20}$/;
// Lowercase only: the platform mints versions with randomUUID, and one spelling per version
// keeps case-insensitive file systems from folding two keys into one file.
const VERSION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Hex doubles the length: 127 bytes keeps the segment within NAME_MAX (255) on every file system.
const MAX_BUCKET_BYTES = 127;

/** A key component the blob layer refuses: the caller skipped validation (a bug, so a 500). */
export class InvalidBlobKeyError extends Error {
  constructor(what: string) {
    super(`Invalid blob key: ${what}`);
    this.name = 'InvalidBlobKeyError';
  }
}

export function assertRef(ref: string): void {
  if (typeof ref !== 'string' || !REF.test(ref)) {
    throw new InvalidBlobKeyError('ref must be 20 lowercase letters and digits');
  }
}

/**
 * The bucket id as one path segment or key segment: lowercase hex of its UTF-8 bytes. Hex can
 * never be `.`, `..` or contain `/` or `%`, does not depend on case (macOS and Windows fold
 * case; bucket ids do not) and is safe unescaped in S3 keys and CopySource headers.
 */
export function encodeBucket(bucket: string): string {
  if (typeof bucket !== 'string' || bucket.length === 0) {
    throw new InvalidBlobKeyError('bucket must be a non-empty string');
  }
  const bytes = Buffer.from(bucket, 'utf8');
  if (bytes.length > MAX_BUCKET_BYTES) {
    throw new InvalidBlobKeyError(`bucket must be at most ${MAX_BUCKET_BYTES} bytes`);
  }
  return bytes.toString('hex');
}

/** `[ref, encoded bucket, version]`, each checked: the only strings that reach a path or key. */
export function keySegments(key: BlobKey): [string, string, string] {
  assertRef(key.ref);
  const bucket = encodeBucket(key.bucket);
  if (typeof key.version !== 'string' || !VERSION.test(key.version)) {
    throw new InvalidBlobKeyError('version must be a lowercase UUID');
  }
  return [key.ref, bucket, key.version];
}

/**
 * The ETag of a stored version: its id as 32 hex digits, quoted. A strong validator, since a
 * version's bytes never change (a new upload is a new version), and shaped like the MD5 ETags
 * storage-api sends.
 */
export const versionEtag = (version: string): string => `"${version.replace(/-/g, '')}"`;
