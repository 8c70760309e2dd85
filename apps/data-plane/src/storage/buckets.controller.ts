import { Controller, Delete, Get, Post, Put, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type BucketRow, StorageErrors, StorageStore, validateBucketId } from '@baseplate/storage';
import { ProjectCtx, type ProjectRequestContext } from '../project-context';
import { answer, type Body, bodyOf, queryOf, requestOf } from './storage-http';
import { ownerOf, StorageService } from './storage.service';

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** `file_size_limit`: bytes as a number, or a string such as "1MB" (supabase-js accepts both). */
export function parseSizeLimit(value: unknown): number | null {
  if (value === null || value === undefined || value === '' || value === 0) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
    if (match) {
      const bytes = Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!);
      if (Number.isSafeInteger(bytes) && bytes > 0) return bytes;
    }
  }
  throw StorageErrors.invalidRequest(
    'file_size_limit must be a positive number of bytes or a size such as "10MB"',
  );
}

function parseMimeTypes(value: unknown): string[] | null {
  if (value === null || value === undefined) return null;
  if (
    !Array.isArray(value) ||
    !value.every((t) => typeof t === 'string' && /^[\w.+-]+\/[\w.+*-]+$/.test(t))
  ) {
    throw StorageErrors.invalidRequest(
      'allowed_mime_types must be a list of MIME types such as "image/png" or "image/*"',
    );
  }
  return value.length === 0 ? null : (value as string[]);
}

const view = (b: BucketRow) => ({
  id: b.id,
  name: b.name,
  owner: b.owner ?? '',
  public: b.public,
  file_size_limit: b.file_size_limit === null ? null : Number(b.file_size_limit),
  allowed_mime_types: b.allowed_mime_types,
  created_at: b.created_at.toISOString(),
  updated_at: b.updated_at.toISOString(),
});

const bucketParam = (req: FastifyRequest): string =>
  validateBucketId((req.params as { id?: string }).id);

/**
 * `/storage/v1/bucket`: buckets as the caller's role, so the service key (which bypasses
 * RLS) or policies on storage.buckets decide who may see and change them.
 */
@ApiExcludeController()
@Controller('storage/v1/bucket')
export class BucketsController {
  constructor(private readonly storage: StorageService) {}

  @Get()
  list(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const q = queryOf(req);
      const num = (v: unknown) =>
        v === undefined || v === '' ? undefined : Math.max(0, Math.floor(Number(v)) || 0);
      const rows = await this.storage.tx(ctx, requestOf(req), (db) =>
        StorageStore.listBuckets(db, {
          limit: num(q.limit),
          offset: num(q.offset),
          search: typeof q.search === 'string' ? q.search : '',
          sortColumn: typeof q.sortColumn === 'string' ? q.sortColumn : undefined,
          sortOrder: typeof q.sortOrder === 'string' ? q.sortOrder : undefined,
        }),
      );
      return rows.map(view);
    });
  }

  @Get(':id')
  get(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const id = bucketParam(req);
      const row = await this.storage.tx(ctx, requestOf(req), (db) => StorageStore.bucket(db, id));
      if (!row) throw StorageErrors.bucketNotFound();
      return view(row);
    });
  }

  @Post()
  create(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const body: Body = bodyOf(req);
      const id = validateBucketId(body.id ?? body.name);
      const name = body.name === undefined ? id : validateBucketId(body.name);
      if (body.public !== undefined && typeof body.public !== 'boolean') {
        throw StorageErrors.invalidRequest('public must be a boolean');
      }
      await this.storage.tx(ctx, requestOf(req), (db) =>
        StorageStore.createBucket(db, {
          id,
          name,
          public: body.public === true,
          fileSizeLimit: parseSizeLimit(body.file_size_limit),
          allowedMimeTypes: parseMimeTypes(body.allowed_mime_types),
          owner: ownerOf(ctx),
        }),
      );
      return { name: id };
    });
  }

  @Put(':id')
  update(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      const id = bucketParam(req);
      const body = bodyOf(req);
      if (body.public !== undefined && typeof body.public !== 'boolean') {
        throw StorageErrors.invalidRequest('public must be a boolean');
      }
      await this.storage.tx(ctx, requestOf(req), (db) =>
        StorageStore.updateBucket(db, id, {
          ...(typeof body.public === 'boolean' ? { public: body.public } : {}),
          ...('file_size_limit' in body
            ? { fileSizeLimit: parseSizeLimit(body.file_size_limit) }
            : {}),
          ...('allowed_mime_types' in body
            ? { allowedMimeTypes: parseMimeTypes(body.allowed_mime_types) }
            : {}),
        }),
      );
      return { message: 'Successfully updated' };
    });
  }

  @Post(':id/empty')
  empty(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      await this.storage.emptyBucket(ctx, requestOf(req), bucketParam(req));
      return { message: 'Successfully emptied' };
    });
  }

  @Delete(':id')
  remove(
    @ProjectCtx() ctx: ProjectRequestContext,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return answer(reply, async () => {
      await this.storage.deleteBucket(ctx, requestOf(req), bucketParam(req));
      return { message: 'Successfully deleted' };
    });
  }
}
