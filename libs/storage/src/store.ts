import type { PoolClient } from 'pg';
import { StorageErrors } from './errors';

type Queryable = Pick<PoolClient, 'query'>;

export interface BucketRow {
  id: string;
  name: string;
  owner: string | null;
  public: boolean;
  file_size_limit: string | number | null;
  allowed_mime_types: string[] | null;
  created_at: Date;
  updated_at: Date;
}

export interface ObjectRow {
  id: string;
  bucket_id: string;
  name: string;
  owner: string | null;
  metadata: ObjectMetadata | null;
  user_metadata: Record<string, unknown> | null;
  version: string | null;
  created_at: Date;
  updated_at: Date;
  last_accessed_at: Date;
}

/** What storage-api keeps in `storage.objects.metadata` (storage-js reads these keys). */
export interface ObjectMetadata {
  eTag: string;
  size: number;
  mimetype: string;
  cacheControl: string;
  lastModified: string;
  contentLength: number;
  httpStatusCode: number;
}

export interface ListEntry {
  name: string;
  id: string | null;
  updated_at: Date | null;
  created_at: Date | null;
  last_accessed_at: Date | null;
  metadata: ObjectMetadata | null;
}

const BUCKET_COLUMNS =
  'id, name, owner, public, file_size_limit, allowed_mime_types, created_at, updated_at';
const OBJECT_COLUMNS =
  'id, bucket_id, name, owner, metadata, user_metadata, version, created_at, updated_at, last_accessed_at';

const BUCKET_SORT = new Set(['id', 'name', 'created_at', 'updated_at']);
const OBJECT_SORT = new Set(['name', 'created_at', 'updated_at', 'last_accessed_at']);

/** One object row as an upload, replacement or copy writes it. */
export interface ObjectWrite {
  bucket: string;
  name: string;
  owner: string | null;
  metadata: ObjectMetadata | null;
  version: string;
  userMetadata: Record<string, unknown> | null;
}

/** $1-$6 of an object row write: bucket, name, owner, metadata, version, user metadata. */
const objectParams = (o: ObjectWrite): unknown[] => [
  o.bucket,
  o.name,
  o.owner,
  JSON.stringify(o.metadata),
  o.version,
  o.userMetadata === null ? null : JSON.stringify(o.userMetadata),
];

/** `%`, `_` and `\` of a LIKE pattern taken literally. */
const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * SQL of the storage service over one project database. Every function runs in the caller's
 * transaction, as the request's role, so the project's policies decide; values are parameters
 * and the few identifiers (sort columns) come from fixed sets.
 */
export const StorageStore = {
  async listBuckets(
    db: Queryable,
    opts: {
      limit?: number;
      offset?: number;
      search?: string;
      sortColumn?: string;
      sortOrder?: string;
    },
  ): Promise<BucketRow[]> {
    const column = opts.sortColumn && BUCKET_SORT.has(opts.sortColumn) ? opts.sortColumn : 'name';
    const order = opts.sortOrder?.toLowerCase() === 'desc' ? 'DESC' : 'ASC';
    const { rows } = await db.query<BucketRow>(
      `SELECT ${BUCKET_COLUMNS} FROM storage.buckets
        WHERE ($1 = '' OR name ILIKE '%' || $1 || '%')
        ORDER BY ${column} ${order}, id LIMIT $2 OFFSET $3`,
      [likeLiteral(opts.search ?? ''), opts.limit ?? null, opts.offset ?? 0],
    );
    return rows;
  },

  async bucket(db: Queryable, id: string): Promise<BucketRow | undefined> {
    const { rows } = await db.query<BucketRow>(
      `SELECT ${BUCKET_COLUMNS} FROM storage.buckets WHERE id = $1`,
      [id],
    );
    return rows[0];
  },

  async createBucket(
    db: Queryable,
    b: {
      id: string;
      name: string;
      public: boolean;
      fileSizeLimit: number | null;
      allowedMimeTypes: string[] | null;
      owner: string | null;
    },
  ): Promise<void> {
    const { rows } = await db.query(
      `INSERT INTO storage.buckets (id, name, public, file_size_limit, allowed_mime_types, owner)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id`,
      [b.id, b.name, b.public, b.fileSizeLimit, b.allowedMimeTypes, b.owner],
    );
    if (!rows[0]) throw StorageErrors.duplicate();
  },

  async updateBucket(
    db: Queryable,
    id: string,
    change: { public?: boolean; fileSizeLimit?: number | null; allowedMimeTypes?: string[] | null },
  ): Promise<void> {
    const { rows } = await db.query(
      `UPDATE storage.buckets SET
         public = coalesce($2, public),
         file_size_limit = CASE WHEN $3 THEN $4 ELSE file_size_limit END,
         allowed_mime_types = CASE WHEN $5 THEN $6 ELSE allowed_mime_types END,
         updated_at = now()
       WHERE id = $1 RETURNING id`,
      [
        id,
        change.public ?? null,
        change.fileSizeLimit !== undefined,
        change.fileSizeLimit ?? null,
        change.allowedMimeTypes !== undefined,
        change.allowedMimeTypes ?? null,
      ],
    );
    if (!rows[0]) throw StorageErrors.bucketNotFound();
  },

  /** Deletes the bucket's objects (those the caller may delete); answers their versions. */
  async emptyBucket(db: Queryable, id: string): Promise<string[]> {
    const { rows } = await db.query<{ version: string | null }>(
      'DELETE FROM storage.objects WHERE bucket_id = $1 RETURNING version',
      [id],
    );
    return rows.flatMap((r) => (r.version ? [r.version] : []));
  },

  /**
   * Deletes an empty bucket the caller can see. Objects the caller cannot see still count:
   * the foreign key refuses the delete (the caller maps that to "not empty" as well).
   */
  async deleteBucket(db: Queryable, id: string): Promise<void> {
    const { rows: visible } = await db.query('SELECT 1 FROM storage.buckets WHERE id = $1', [id]);
    if (!visible[0]) throw StorageErrors.bucketNotFound();
    const { rows: objects } = await db.query(
      'SELECT 1 FROM storage.objects WHERE bucket_id = $1 LIMIT 1',
      [id],
    );
    if (objects[0]) throw StorageErrors.bucketNotEmpty();
    const { rows } = await db.query('DELETE FROM storage.buckets WHERE id = $1 RETURNING id', [id]);
    if (!rows[0]) throw StorageErrors.bucketNotFound();
  },

  async object(db: Queryable, bucket: string, name: string): Promise<ObjectRow | undefined> {
    const { rows } = await db.query<ObjectRow>(
      `SELECT ${OBJECT_COLUMNS} FROM storage.objects WHERE bucket_id = $1 AND name = $2`,
      [bucket, name],
    );
    return rows[0];
  },

  /** An object of a public bucket (read as service_role: public buckets need no policy). */
  async publicObject(db: Queryable, bucket: string, name: string): Promise<ObjectRow | undefined> {
    const { rows } = await db.query<ObjectRow>(
      `SELECT ${OBJECT_COLUMNS} FROM storage.objects o
        WHERE bucket_id = $1 AND name = $2
          AND EXISTS (SELECT 1 FROM storage.buckets b WHERE b.id = o.bucket_id AND b.public)`,
      [bucket, name],
    );
    return rows[0];
  },

  /**
   * Writes the row of an uploaded version: a new object, or (with `upsert`) a replaced one.
   * Answers the row and the version it replaced (whose bytes the caller deletes after the
   * commit); a name taken without `upsert` is 409.
   */
  async putObject(
    db: Queryable,
    o: ObjectWrite & { upsert: boolean },
  ): Promise<{ row: ObjectRow; replaced: string | null }> {
    const conflict = o.upsert
      ? `DO UPDATE SET owner = EXCLUDED.owner, owner_id = EXCLUDED.owner_id, metadata = EXCLUDED.metadata,
           user_metadata = EXCLUDED.user_metadata, version = EXCLUDED.version, updated_at = now(),
           last_accessed_at = now()`
      : 'DO NOTHING';
    const { rows } = await db.query<ObjectRow & { replaced: string | null }>(
      // With upsert, the replaced row is locked first: a row renamed or deleted meanwhile is not
      // reported as replaced (its bytes belong to it still, wherever it went).
      `WITH previous AS (
         SELECT version FROM storage.objects WHERE bucket_id = $1 AND name = $2
         ${o.upsert ? 'FOR UPDATE' : 'LIMIT 0'}
       )
       INSERT INTO storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
       VALUES ($1, $2, $3::uuid, $3::uuid::text, $4, $6, $5)
       ON CONFLICT (bucket_id, name) ${conflict}
       RETURNING ${OBJECT_COLUMNS}, (SELECT version FROM previous) AS replaced`,
      objectParams(o),
    );
    const row = rows[0];
    if (!row) throw StorageErrors.duplicate();
    const { replaced, ...object } = row;
    return { row: object, replaced };
  },

  /** PUT /object: replaces an existing object's bytes; 404 when there is none to replace. */
  async replaceObject(
    db: Queryable,
    o: ObjectWrite,
  ): Promise<{ row: ObjectRow; replaced: string | null }> {
    const { rows } = await db.query<ObjectRow & { replaced: string | null }>(
      `UPDATE storage.objects o SET owner = $3::uuid, owner_id = $3::uuid::text, metadata = $4, version = $5,
              user_metadata = $6, updated_at = now(), last_accessed_at = now()
         FROM (SELECT id, version AS replaced FROM storage.objects
                WHERE bucket_id = $1 AND name = $2 FOR UPDATE) previous
        WHERE o.id = previous.id
        RETURNING ${OBJECT_COLUMNS.split(', ')
          .map((c) => `o.${c}`)
          .join(', ')}, previous.replaced`,
      objectParams(o),
    );
    const row = rows[0];
    if (!row) throw StorageErrors.objectNotFound();
    const { replaced, ...object } = row;
    return { row: object, replaced };
  },

  /** Deletes the named objects the caller may delete; answers the deleted rows. */
  async deleteObjects(db: Queryable, bucket: string, names: string[]): Promise<ObjectRow[]> {
    const { rows } = await db.query<ObjectRow>(
      `DELETE FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2) RETURNING ${OBJECT_COLUMNS}`,
      [bucket, names],
    );
    return rows;
  },

  /** Renames (and maybe re-buckets) an object; 404 unless the caller may update it. */
  async moveObject(
    db: Queryable,
    from: { bucket: string; name: string },
    to: { bucket: string; name: string },
  ): Promise<ObjectRow> {
    const { rows } = await db.query<ObjectRow>(
      `UPDATE storage.objects SET bucket_id = $3, name = $4, updated_at = now()
        WHERE bucket_id = $1 AND name = $2 RETURNING ${OBJECT_COLUMNS}`,
      [from.bucket, from.name, to.bucket, to.name],
    );
    if (!rows[0]) throw StorageErrors.objectNotFound();
    return rows[0];
  },

  /** The row of a copy (new id and version, the caller as owner); 409 if the target exists. */
  async insertCopy(
    db: Queryable,
    source: ObjectRow,
    to: { bucket: string; name: string; version: string; owner: string | null },
  ): Promise<ObjectRow> {
    const { rows } = await db.query<ObjectRow>(
      `INSERT INTO storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
       VALUES ($1, $2, $3::uuid, $3::uuid::text, $4, $6, $5)
       ON CONFLICT (bucket_id, name) DO NOTHING RETURNING ${OBJECT_COLUMNS}`,
      objectParams({
        ...to,
        metadata: source.metadata,
        userMetadata: source.user_metadata,
      }),
    );
    if (!rows[0]) throw StorageErrors.duplicate();
    return rows[0];
  },

  /**
   * One level of a bucket under `prefix` (storage-api's `storage.search`): the objects directly
   * in it, and its sub-folders as entries with `id: null`.
   */
  async list(
    db: Queryable,
    bucket: string,
    opts: {
      prefix: string;
      limit: number;
      offset: number;
      search: string;
      sortColumn: string;
      sortOrder: string;
    },
  ): Promise<ListEntry[]> {
    const column = OBJECT_SORT.has(opts.sortColumn) ? opts.sortColumn : 'name';
    const order = opts.sortOrder.toLowerCase() === 'desc' ? 'DESC' : 'ASC';
    // Byte order for names, as storage-api sorts them.
    const orderBy = column === 'name' ? 'name COLLATE "C"' : column;
    const base = opts.prefix === '' ? '' : `${opts.prefix}/`;
    const { rows } = await db.query<ListEntry>(
      `WITH scoped AS (
         SELECT substr(name, $3) AS rest, id, updated_at, created_at, last_accessed_at, metadata
           FROM storage.objects
          WHERE bucket_id = $1 AND ($2 = '' OR name COLLATE "C" LIKE $2 || '%')
       ), entries AS (
         SELECT DISTINCT split_part(rest, '/', 1) AS name, NULL::uuid AS id,
                NULL::timestamptz AS updated_at, NULL::timestamptz AS created_at,
                NULL::timestamptz AS last_accessed_at, NULL::jsonb AS metadata
           FROM scoped WHERE strpos(rest, '/') > 0
         UNION ALL
         SELECT rest, id, updated_at, created_at, last_accessed_at, metadata
           FROM scoped WHERE strpos(rest, '/') = 0
       )
       SELECT * FROM entries
        WHERE $4 = '' OR name ILIKE $4 || '%'
        ORDER BY ${orderBy} ${order} NULLS FIRST, id NULLS FIRST
        LIMIT $5 OFFSET $6`,
      [
        bucket,
        likeLiteral(base),
        base.length + 1,
        likeLiteral(opts.search),
        opts.limit,
        opts.offset,
      ],
    );
    return rows;
  },
};
