import { Inject, Injectable } from '@nestjs/common';
import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { InjectPinoLogger, PinoLogger } from 'nestjs-pino';
import type { PoolClient } from 'pg';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import {
  type BlobKey,
  type BlobStore,
  BlobTooLargeError,
  type BucketRow,
  type ObjectMetadata,
  type ObjectRow,
  StorageErrors,
  StorageStore,
} from '@baseplate/storage';
import { ProjectDatabaseService, type ProjectRequestContext } from '../project-context';
import type { UploadBody } from './upload-body';

export const BLOB_STORE = Symbol('BLOB_STORE');

type Db = Pick<PoolClient, 'query'>;
export interface RequestInfo {
  method: string;
  path: string;
}

/** Where an upload goes: a new object (`upsert` replaces one) or a replaced one (`update`). */
export interface UploadTarget {
  bucket: string;
  name: string;
  mode: 'create' | 'update';
  upsert: boolean;
}

/** The uploader or creator recorded as `owner`: the token's user, none for the keys. */
export const ownerOf = (ctx: ProjectRequestContext): string | null =>
  typeof ctx.claims.sub === 'string' ? ctx.claims.sub : null;

/** A transaction thrown away on purpose after a permission probe. */
class Probe extends Error {}

/** What one upload brings besides the bytes. */
interface IncomingFile {
  stream: Readable;
  mimetype: string;
  cacheControl: string;
  userMetadata: Record<string, unknown> | null;
}

const asSeconds = (value: string | undefined): string => {
  const match = value ? /(\d+)/.exec(value) : null;
  return `max-age=${match ? match[1] : '3600'}`;
};

/** `image/*` style entries of `allowed_mime_types` match any subtype. */
export function mimeAllowed(type: string, allowed: string[] | null): boolean {
  if (!allowed || allowed.length === 0) return true;
  const [base] = type.toLowerCase().split(';', 1);
  const mime = base!.trim();
  return allowed.some((a) => {
    const rule = a.toLowerCase().trim();
    return rule.endsWith('/*') ? mime.startsWith(rule.slice(0, -1)) : rule === mime;
  });
}

/** SQLSTATEs the project's policies and constraints answer with, as storage errors. */
function storageErrorOf(e: unknown): unknown {
  const code = (e as { code?: unknown }).code;
  if (code === '42501') return StorageErrors.unauthorized((e as Error).message);
  if (code === '23505') return StorageErrors.duplicate();
  // A bucket delete blocked by objects, or an object written into a bucket that is gone.
  if (code === '23503') {
    return (e as { table?: string }).table === 'buckets'
      ? StorageErrors.bucketNotEmpty()
      : StorageErrors.bucketNotFound();
  }
  return e;
}

/**
 * Storage's rules: metadata in the project database as the caller's role (policies decide),
 * bytes in the BlobStore by version. Bytes are written before their row and deleted after
 * theirs is gone, so a row never points at missing bytes; a failure in between leaves at worst
 * an orphaned version, never a broken object.
 */
@Injectable()
export class StorageService {
  constructor(
    private readonly db: ProjectDatabaseService,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectPinoLogger(StorageService.name) private readonly logger: PinoLogger,
  ) {}

  /** The same request as service_role (public reads, signed URLs), with `sub` if given. */
  asService(ctx: ProjectRequestContext, sub?: string | null): ProjectRequestContext {
    return {
      ...ctx,
      role: 'service_role',
      claims: { role: 'service_role', ...(sub ? { sub } : {}) },
    };
  }

  /** A transaction as the context's role; policy and constraint failures become storage errors. */
  async tx<T>(
    ctx: ProjectRequestContext,
    req: RequestInfo,
    fn: (db: Db) => Promise<T>,
  ): Promise<T> {
    try {
      // Storage SQL qualifies every name; `public` is there for helpers the project's own
      // policies call unqualified.
      return await this.db.withRequest(ctx, { ...req, searchPath: ['public'] }, ({ client }) =>
        fn(client),
      );
    } catch (e) {
      throw storageErrorOf(e);
    }
  }

  key(ctx: ProjectRequestContext, bucket: string, version: string): BlobKey {
    return { ref: ctx.ref, bucket, version };
  }

  /** Deletes bytes no row points at any more; a failure only leaves an orphan, so it is logged. */
  async discard(
    ctx: ProjectRequestContext,
    bucket: string,
    versions: (string | null)[],
  ): Promise<void> {
    const keys = versions.flatMap((v) => (v ? [this.key(ctx, bucket, v)] : []));
    if (keys.length === 0) return;
    await this.blobs.delete(keys).catch((err: unknown) => {
      this.logger.warn({ err, ref: ctx.ref, bucket }, 'Stored bytes not deleted (orphaned)');
    });
  }

  // --- buckets ---------------------------------------------------------------------------

  async bucketForWrite(
    ctx: ProjectRequestContext,
    req: RequestInfo,
    bucket: string,
  ): Promise<BucketRow> {
    // Limits are read as service_role: a bucket's settings are not secret to an uploader
    // whose policies allow the upload (storage-api reads them as its superuser too).
    const row = await this.tx(this.asService(ctx), req, (db) => StorageStore.bucket(db, bucket));
    if (!row) throw StorageErrors.bucketNotFound();
    return row;
  }

  /**
   * For a move or copy into another bucket: a check that the object fits the target bucket's
   * size limit and MIME types, as an upload there would have to (a no-op within one bucket).
   */
  async admission(
    ctx: ProjectRequestContext,
    req: RequestInfo,
    fromBucket: string,
    toBucket: string,
  ): Promise<(object: ObjectRow) => void> {
    if (fromBucket === toBucket) return () => undefined;
    const target = await this.bucketForWrite(ctx, req, toBucket);
    return (object) => {
      const size = Number(object.metadata?.size ?? 0);
      if (target.file_size_limit !== null && size > Number(target.file_size_limit)) {
        throw StorageErrors.tooLarge();
      }
      const type = object.metadata?.mimetype ?? 'application/octet-stream';
      if (!mimeAllowed(type, target.allowed_mime_types)) throw StorageErrors.mimeNotAllowed(type);
    };
  }

  async emptyBucket(ctx: ProjectRequestContext, req: RequestInfo, bucket: string): Promise<void> {
    const versions = await this.tx(ctx, req, async (db) => {
      if (!(await StorageStore.bucket(db, bucket))) throw StorageErrors.bucketNotFound();
      return StorageStore.emptyBucket(db, bucket);
    });
    await this.discard(ctx, bucket, versions);
  }

  async deleteBucket(ctx: ProjectRequestContext, req: RequestInfo, bucket: string): Promise<void> {
    await this.tx(ctx, req, (db) => StorageStore.deleteBucket(db, bucket));
    await this.blobs.deleteAll(ctx.ref, bucket).catch((err: unknown) => {
      this.logger.warn({ err, ref: ctx.ref, bucket }, 'Bucket directory not removed');
    });
  }

  // --- uploads ---------------------------------------------------------------------------

  /**
   * An upload: `create` (POST; `upsert` replaces an existing object) or `update` (PUT). The
   * caller's policies are tried first in a transaction that is rolled back, so a refused
   * upload is refused before a byte is stored.
   */
  async upload(
    ctx: ProjectRequestContext,
    req: RequestInfo,
    input: UploadTarget & { body: UploadBody },
  ): Promise<ObjectRow> {
    const bucket = await this.admitUpload(ctx, req, input);
    const file = await this.incomingFile(input.body);
    if (!mimeAllowed(file.mimetype, bucket.allowed_mime_types)) {
      file.stream.resume();
      throw StorageErrors.mimeNotAllowed(file.mimetype);
    }
    const limit = Math.min(
      this.config.storageMaxUploadBytes,
      bucket.file_size_limit === null ? Number.MAX_SAFE_INTEGER : Number(bucket.file_size_limit),
    );
    const version = randomUUID();
    let stored;
    try {
      stored = await this.blobs.put(this.key(ctx, bucket.id, version), file.stream, {
        contentType: file.mimetype,
        maxBytes: limit,
      });
    } catch (e) {
      if (e instanceof BlobTooLargeError) {
        file.stream.resume();
        throw StorageErrors.tooLarge();
      }
      throw e;
    }
    const metadata: ObjectMetadata = {
      eTag: stored.etag,
      size: stored.size,
      mimetype: file.mimetype,
      cacheControl: file.cacheControl,
      lastModified: new Date().toISOString(),
      contentLength: stored.size,
      httpStatusCode: 200,
    };
    let result;
    try {
      result = await this.tx(ctx, req, (db) =>
        this.writeRow(db, ctx, input, version, metadata, file.userMetadata),
      );
    } catch (e) {
      await this.discard(ctx, bucket.id, [version]);
      throw e;
    }
    await this.discard(ctx, bucket.id, [result.replaced]);
    return result.row;
  }

  /**
   * Whether the caller may write this upload's row (the bucket exists, the policies allow it,
   * the name is free unless it is replaced), tried in a transaction that is rolled back, so
   * nothing is stored. Answers the bucket, whose limits the upload then applies.
   */
  async admitUpload(
    ctx: ProjectRequestContext,
    req: RequestInfo,
    target: UploadTarget,
  ): Promise<BucketRow> {
    const bucket = await this.bucketForWrite(ctx, req, target.bucket);
    await this.probe(ctx, req, (db) =>
      this.writeRow(db, ctx, target, randomUUID(), placeholderMetadata(), null).then(
        () => undefined,
      ),
    );
    return bucket;
  }

  /** The row an upload writes: new (replacing with `upsert`), or replacing (`update`). */
  private writeRow(
    db: Db,
    ctx: ProjectRequestContext,
    target: UploadTarget,
    version: string,
    metadata: ObjectMetadata,
    userMetadata: Record<string, unknown> | null,
  ): Promise<{ row: ObjectRow; replaced: string | null }> {
    const row = { bucket: target.bucket, name: target.name, owner: ownerOf(ctx) };
    return target.mode === 'update'
      ? StorageStore.replaceObject(db, { ...row, metadata, userMetadata, version })
      : StorageStore.putObject(db, {
          ...row,
          metadata,
          userMetadata,
          version,
          upsert: target.upsert,
        });
  }

  /** Runs `fn` as the caller and rolls it back: a policy or conflict error surfaces, nothing stays. */
  async probe(
    ctx: ProjectRequestContext,
    req: RequestInfo,
    fn: (db: Db) => Promise<void>,
  ): Promise<void> {
    try {
      await this.tx(ctx, req, async (db) => {
        await fn(db);
        throw new Probe();
      });
    } catch (e) {
      if (!(e instanceof Probe)) throw e;
    }
  }

  /** The file of a multipart body (the part after `cacheControl` and `metadata`) or a raw body. */
  private incomingFile(body: UploadBody): Promise<IncomingFile> {
    const type = body.contentType;
    if (!/^multipart\/form-data/i.test(type)) {
      return Promise.resolve({
        stream: body.stream,
        mimetype: type.trim() === '' ? 'application/octet-stream' : type,
        cacheControl: asSeconds(header(body.headers['cache-control'])),
        userMetadata: decodeMetadata(header(body.headers['x-metadata']), 'base64'),
      });
    }
    return new Promise((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        parser = busboy({
          headers: { 'content-type': type },
          limits: { files: 1, fields: 10, fieldSize: 64 * 1024, parts: 12 },
        });
      } catch {
        reject(StorageErrors.invalidRequest('Malformed multipart body'));
        return;
      }
      const fields: Record<string, string> = {};
      let settled = false;
      parser.on('field', (name, value) => {
        fields[name] = value;
      });
      parser.on('file', (_name, stream, info) => {
        settled = true;
        try {
          resolve({
            stream,
            mimetype: info.mimeType || 'application/octet-stream',
            cacheControl: asSeconds(fields.cacheControl),
            userMetadata: decodeMetadata(fields.metadata, 'json'),
          });
        } catch (e) {
          stream.resume();
          reject(e);
        }
      });
      parser.on('error', () => {
        if (!settled) reject(StorageErrors.invalidRequest('Malformed multipart body'));
      });
      parser.on('close', () => {
        if (!settled) reject(StorageErrors.invalidRequest('The multipart body has no file'));
      });
      body.stream.pipe(parser);
    });
  }
}

const header = (v: string | string[] | undefined): string | undefined =>
  Array.isArray(v) ? v[0] : v;

function decodeMetadata(
  raw: string | undefined,
  encoding: 'base64' | 'json',
): Record<string, unknown> | null {
  if (raw === undefined || raw === '') return null;
  try {
    const text = encoding === 'base64' ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // answered below
  }
  throw StorageErrors.invalidRequest('metadata must be a JSON object');
}

function placeholderMetadata(): ObjectMetadata {
  return {
    eTag: '""',
    size: 0,
    mimetype: 'application/octet-stream',
    cacheControl: 'max-age=3600',
    lastModified: new Date().toISOString(),
    contentLength: 0,
    httpStatusCode: 200,
  };
}
