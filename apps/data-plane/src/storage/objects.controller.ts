import { Controller, Delete, Get, Post, Put, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type BlobStore,
  type ByteRange,
  type ObjectRow,
  signObjectToken,
  StorageErrors,
  StorageStore,
  UPLOAD_URL_TTL_S,
  validateBucketId,
  validateObjectName,
  validatePrefix,
  verifyObjectToken,
} from '@baseplate/storage';
import { Inject } from '@nestjs/common';
import { ProjectCtx, type ProjectRequestContext, PublicProjectRoute } from '../project-context';
import { answer, bodyOf, isObject, queryOf, requestOf, wildcardOf } from './storage-http';
import { BLOB_STORE, ownerOf, StorageService } from './storage.service';
import { UploadBody } from './upload-body';

const LIST_LIMIT_MAX = 1000;

/** One `bytes=a-b` range (suffix and open forms too); undefined: serve it all; null: 416. */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined | null {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return null;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return null;
  return { start, end };
}

/** `Content-Disposition: attachment` with an ASCII fallback and the RFC 5987 UTF-8 name. */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** A refused upload's rest is read and dropped (keeping the connection) only up to this. */
const DRAIN_MAX_BYTES = 1024 * 1024;

/**
 * After a refused upload: a small rest of the body is drained so the connection can be used
 * again; a large or unknown one is not read at all: the answer goes out with
 * `Connection: close` and the socket is closed behind it.
 */
function abandon(req: FastifyRequest, reply: FastifyReply, body: UploadBody): void {
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length <= DRAIN_MAX_BYTES) {
    body.stream.resume();
    return;
  }
  void reply.header('connection', 'close');
  reply.raw.once('finish', () => req.raw.socket?.destroy());
  body.stream.resume();
}

/** The source and target of a move or copy (`destinationBucket` defaults to the source's). */
function transferOf(body: Record<string, unknown>) {
  const from = {
    bucket: validateBucketId(body.bucketId),
    name: validateObjectName(body.sourceKey),
  };
  const to = {
    bucket:
      body.destinationBucket === undefined ? from.bucket : validateBucketId(body.destinationBucket),
    name: validateObjectName(body.destinationKey),
  };
  return { from, to };
}

const bucketOf = (req: FastifyRequest): string =>
  validateBucketId((req.params as { bucket?: string }).bucket);

const objectView = (o: ObjectRow) => ({
  bucket_id: o.bucket_id,
  name: o.name,
  id: o.id,
  owner: o.owner,
  version: o.version,
  metadata: o.metadata,
  user_metadata: o.user_metadata,
  created_at: o.created_at.toISOString(),
  updated_at: o.updated_at.toISOString(),
  last_accessed_at: o.last_accessed_at.toISOString(),
});

/** `/storage/v1/object`: files, as storage-api serves them to storage-js. */
@ApiExcludeController()
@Controller('storage/v1/object')
export class ObjectsController {
  constructor(
    private readonly storage: StorageService,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  // --- listing ---------------------------------------------------------------------------

  @Post('list/:bucket')
  listPost(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, () => this.list(ctx, req, bodyOf(req)));
  }

  @Get('list/:bucket')
  listGet(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, () => this.list(ctx, req, queryOf(req)));
  }

  private async list(
    ctx: ProjectRequestContext,
    req: FastifyRequest,
    opts: Record<string, unknown>,
  ) {
    const bucket = bucketOf(req);
    const prefix = validatePrefix(opts.prefix);
    const limit = opts.limit === undefined || opts.limit === '' ? 100 : Number(opts.limit);
    const offset = opts.offset === undefined || opts.offset === '' ? 0 : Number(opts.offset);
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0) {
      throw StorageErrors.invalidRequest(
        'limit must be a positive integer and offset a non-negative one',
      );
    }
    const sortBy = isObject(opts.sortBy) ? opts.sortBy : {};
    const rows = await this.storage.tx(ctx, requestOf(req), (db) =>
      StorageStore.list(db, bucket, {
        prefix,
        limit: Math.min(limit, LIST_LIMIT_MAX),
        offset,
        search: typeof opts.search === 'string' ? opts.search : '',
        sortColumn: typeof sortBy.column === 'string' ? sortBy.column : 'name',
        sortOrder: typeof sortBy.order === 'string' ? sortBy.order : 'asc',
      }),
    );
    return rows.map((r) => ({
      name: r.name,
      id: r.id,
      updated_at: r.updated_at?.toISOString() ?? null,
      created_at: r.created_at?.toISOString() ?? null,
      last_accessed_at: r.last_accessed_at?.toISOString() ?? null,
      metadata: r.metadata,
    }));
  }

  // --- move, copy, info ------------------------------------------------------------------

  @Post('move')
  move(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const { from, to } = transferOf(bodyOf(req));
      const admits = await this.storage.admission(ctx, requestOf(req), from.bucket, to.bucket);
      let copied: string | null = null;
      let moved: ObjectRow;
      try {
        moved = await this.storage.tx(ctx, requestOf(req), async (db) => {
          const row = await StorageStore.moveObject(db, from, to);
          admits(row);
          // Bytes are kept per bucket: a move to another bucket copies them first.
          if (to.bucket !== from.bucket && row.version) {
            await this.blobs.copy(
              this.storage.key(ctx, from.bucket, row.version),
              this.storage.key(ctx, to.bucket, row.version),
            );
            copied = row.version;
          }
          return row;
        });
      } catch (e) {
        if (copied) await this.storage.discard(ctx, to.bucket, [copied]);
        throw e;
      }
      if (to.bucket !== from.bucket) await this.storage.discard(ctx, from.bucket, [moved.version]);
      return { message: 'Successfully moved' };
    });
  }

  @Post('copy')
  copy(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const { from, to } = transferOf(bodyOf(req));
      const admits = await this.storage.admission(ctx, requestOf(req), from.bucket, to.bucket);
      const version = randomUUID();
      let copied = false;
      try {
        const row = await this.storage.tx(ctx, requestOf(req), async (db) => {
          const source = await StorageStore.object(db, from.bucket, from.name);
          if (!source?.version) throw StorageErrors.objectNotFound();
          admits(source);
          await this.blobs.copy(
            this.storage.key(ctx, from.bucket, source.version),
            this.storage.key(ctx, to.bucket, version),
          );
          copied = true;
          return StorageStore.insertCopy(db, source, {
            ...to,
            version,
            owner: ownerOf(ctx),
          });
        });
        return { Id: row.id, Key: `${to.bucket}/${to.name}` };
      } catch (e) {
        if (copied) await this.storage.discard(ctx, to.bucket, [version]);
        throw e;
      }
    });
  }

  @Get('info/:bucket/*')
  info(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const bucket = bucketOf(req);
      const name = validateObjectName(wildcardOf(req));
      const row = await this.storage.tx(ctx, requestOf(req), (db) =>
        StorageStore.object(db, bucket, name),
      );
      if (!row) throw StorageErrors.objectNotFound();
      return {
        id: row.id,
        name: row.name,
        version: row.version,
        bucket_id: row.bucket_id,
        size: row.metadata?.size ?? null,
        content_type: row.metadata?.mimetype ?? null,
        cache_control: row.metadata?.cacheControl ?? null,
        etag: row.metadata?.eTag ?? null,
        metadata: row.user_metadata ?? {},
        last_modified: row.updated_at.toISOString(),
        created_at: row.created_at.toISOString(),
      };
    });
  }

  // --- signed URLs -----------------------------------------------------------------------

  @Post('sign/:bucket')
  signMany(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const bucket = bucketOf(req);
      const body = bodyOf(req);
      const expiresIn = Number(body.expiresIn);
      if (!Array.isArray(body.paths) || body.paths.length === 0 || body.paths.length > 1000) {
        throw StorageErrors.invalidRequest('paths must be a list of 1 to 1000 object names');
      }
      const names = body.paths.map((p) => validateObjectName(p));
      const visible = await this.storage.tx(ctx, requestOf(req), async (db) => {
        const found = new Set<string>();
        for (const name of names) if (await StorageStore.object(db, bucket, name)) found.add(name);
        return found;
      });
      return Promise.all(
        names.map(async (name) =>
          visible.has(name)
            ? {
                error: null,
                path: name,
                signedURL: await this.signedUrl(ctx, bucket, name, expiresIn),
              }
            : {
                error: 'Either the object does not exist or you do not have access to it',
                path: name,
                signedURL: null,
              },
        ),
      );
    });
  }

  @Post('sign/:bucket/*')
  sign(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const bucket = bucketOf(req);
      const name = validateObjectName(wildcardOf(req));
      const row = await this.storage.tx(ctx, requestOf(req), (db) =>
        StorageStore.object(db, bucket, name),
      );
      if (!row) throw StorageErrors.objectNotFound();
      return { signedURL: await this.signedUrl(ctx, bucket, name, Number(bodyOf(req).expiresIn)) };
    });
  }

  @Get('sign/:bucket/*')
  @PublicProjectRoute()
  signedDownload(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const bucket = bucketOf(req);
      const name = validateObjectName(wildcardOf(req));
      await verifyObjectToken(ctx.context.jwtSecret!, queryOf(req).token, {
        url: `${bucket}/${name}`,
        use: 'download',
      });
      const row = await this.storage.tx(this.storage.asService(ctx), requestOf(req), (db) =>
        StorageStore.object(db, bucket, name),
      );
      return this.send(ctx, req, reply, row);
    });
  }

  @Post('upload/sign/:bucket/*')
  signUpload(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const bucket = bucketOf(req);
      const name = validateObjectName(wildcardOf(req));
      const upsert = req.headers['x-upsert'] === 'true';
      // The caller's policies decide now whether the later upload may happen.
      await this.storage.admitUpload(ctx, requestOf(req), { bucket, name, mode: 'create', upsert });
      const token = await signObjectToken(ctx.context.jwtSecret!, {
        url: `${bucket}/${name}`,
        use: 'upload',
        expiresIn: UPLOAD_URL_TTL_S,
        owner: ownerOf(ctx),
        upsert,
      });
      return { url: `/object/upload/sign/${bucket}/${name}?token=${token}`, token };
    });
  }

  @Put('upload/sign/:bucket/*')
  @PublicProjectRoute()
  signedUpload(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const bucket = bucketOf(req);
      const name = validateObjectName(wildcardOf(req));
      const body = this.uploadBody(req);
      try {
        const grant = await verifyObjectToken(ctx.context.jwtSecret!, queryOf(req).token, {
          url: `${bucket}/${name}`,
          use: 'upload',
        });
        const row = await this.storage.upload(
          this.storage.asService(ctx, grant.owner),
          requestOf(req),
          { bucket, name, body, mode: 'create', upsert: grant.upsert },
        );
        return { Id: row.id, Key: `${bucket}/${name}` };
      } catch (e) {
        abandon(req, reply, body);
        throw e;
      }
    });
  }

  // --- public downloads ------------------------------------------------------------------

  @Get('public/:bucket/*')
  @PublicProjectRoute()
  publicDownload(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const bucket = bucketOf(req);
      const name = validateObjectName(wildcardOf(req));
      const row = await this.storage.tx(this.storage.asService(ctx), requestOf(req), (db) =>
        StorageStore.publicObject(db, bucket, name),
      );
      return this.send(ctx, req, reply, row);
    });
  }

  // --- objects by name -------------------------------------------------------------------

  /** `/object/<bucket>/<name>` and `/object/authenticated/...`: the caller's policies decide. */
  @Get(['authenticated/:bucket/*', ':bucket/*'])
  get(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, () => this.download(ctx, req, reply));
  }

  @Post(':bucket/*')
  create(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, () => this.upload(ctx, req, reply, 'create'));
  }

  @Put(':bucket/*')
  update(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, () => this.upload(ctx, req, reply, 'update'));
  }

  @Delete(':bucket/*')
  removeOne(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const bucket = bucketOf(req);
      const name = validateObjectName(wildcardOf(req));
      const rows = await this.storage.tx(ctx, requestOf(req), (db) =>
        StorageStore.deleteObjects(db, bucket, [name]),
      );
      if (rows.length === 0) throw StorageErrors.objectNotFound();
      await this.storage.discard(
        ctx,
        bucket,
        rows.map((r) => r.version),
      );
      return { message: 'Successfully deleted' };
    });
  }

  @Delete(':bucket')
  removeMany(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const bucket = bucketOf(req);
      const prefixes = bodyOf(req).prefixes;
      if (!Array.isArray(prefixes) || prefixes.length === 0 || prefixes.length > 1000) {
        throw StorageErrors.invalidRequest('prefixes must be a list of 1 to 1000 object names');
      }
      const names = prefixes.map((p) => validateObjectName(isObject(p) ? p.path : p));
      const rows = await this.storage.tx(ctx, requestOf(req), (db) =>
        StorageStore.deleteObjects(db, bucket, names),
      );
      await this.storage.discard(
        ctx,
        bucket,
        rows.map((r) => r.version),
      );
      return rows.map(objectView);
    });
  }

  // ---------------------------------------------------------------------------------------

  private async upload(
    ctx: ProjectRequestContext,
    req: FastifyRequest,
    reply: FastifyReply,
    mode: 'create' | 'update',
  ) {
    const body = this.uploadBody(req);
    try {
      const bucket = bucketOf(req);
      const name = validateObjectName(wildcardOf(req));
      const row = await this.storage.upload(ctx, requestOf(req), {
        bucket,
        name,
        body,
        mode,
        upsert: mode === 'create' && req.headers['x-upsert'] === 'true',
      });
      return { Id: row.id, Key: `${bucket}/${name}` };
    } catch (e) {
      abandon(req, reply, body);
      throw e;
    }
  }

  private uploadBody(req: FastifyRequest): UploadBody {
    if (!(req.body instanceof UploadBody))
      throw StorageErrors.invalidRequest('An upload needs a request body');
    return req.body;
  }

  private async download(ctx: ProjectRequestContext, req: FastifyRequest, reply: FastifyReply) {
    const bucket = bucketOf(req);
    const name = validateObjectName(wildcardOf(req));
    const row = await this.storage.tx(ctx, requestOf(req), (db) =>
      StorageStore.object(db, bucket, name),
    );
    return this.send(ctx, req, reply, row);
  }

  private async signedUrl(
    ctx: ProjectRequestContext,
    bucket: string,
    name: string,
    expiresIn: number,
  ) {
    const token = await signObjectToken(ctx.context.jwtSecret!, {
      url: `${bucket}/${name}`,
      use: 'download',
      expiresIn,
    });
    return `/object/sign/${bucket}/${name}?token=${token}`;
  }

  /** Streams an object with its headers; ETag / If-None-Match and single ranges. */
  private async send(
    ctx: ProjectRequestContext,
    req: FastifyRequest,
    reply: FastifyReply,
    row: ObjectRow | undefined,
  ): Promise<undefined> {
    if (!row?.version || !row.metadata) throw StorageErrors.objectNotFound();
    const meta = row.metadata;
    const size = Number(meta.size);
    void reply
      .header('content-type', meta.mimetype)
      .header('cache-control', meta.cacheControl)
      .header('etag', meta.eTag)
      .header('last-modified', row.updated_at.toUTCString())
      .header('accept-ranges', 'bytes');
    const download = queryOf(req).download;
    if (typeof download === 'string') {
      void reply.header(
        'content-disposition',
        attachment(download === '' ? row.name.split('/').pop()! : download),
      );
    }
    if (req.headers['if-none-match'] === meta.eTag) {
      await reply.status(304).send();
      return undefined;
    }
    const range = parseRange(req.headers.range, size);
    if (range === null) {
      void reply.header('content-range', `bytes */${size}`);
      throw StorageErrors.rangeNotSatisfiable();
    }
    const blob = await this.blobs.get(this.storage.key(ctx, row.bucket_id, row.version), range);
    if (range) {
      void reply
        .status(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
        .header('content-length', String(range.end - range.start + 1));
    } else {
      void reply.status(200).header('content-length', String(size));
    }
    await reply.send(blob.body);
    return undefined;
  }
}
