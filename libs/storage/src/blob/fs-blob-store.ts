import { randomBytes } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { copyFile, FileHandle, mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
// Unlinks run on libuv's thread pool; a bounded batch keeps a 10,000-key delete from queueing
// ahead of every other file operation of the process.
const DELETE_CONCURRENCY = 32;

// Duck-typed, not `instanceof Error`: errors from node's fs come from another realm under jest.
const isErrno = (e: unknown, code: string): boolean =>
  typeof e === 'object' && e !== null && (e as NodeJS.ErrnoException).code === code;

/** Read size of downloads. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Blobs as files: `<root>/<ref>/<hex bucket>/<version>`. Writes go to a `.tmp-<random>` file in
 * the target directory and are renamed into place, so a reader sees a whole version or none
 * (rename is atomic within one file system). Temp names cannot clash with versions (UUIDs).
 * A temp file outlives its put only if the process dies mid-write.
 */
export class FsBlobStore implements BlobStore {
  private readonly root: string;

  constructor(rootDir: string) {
    this.root = resolve(rootDir);
  }

  async put(key: BlobKey, body: Readable, options: PutOptions): Promise<PutResult> {
    const target = this.pathOf(key);
    const dir = this.dirOf(key.ref, key.bucket);
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    const temp = this.tempPath(dir);
    const metered = meterBody(body, options.maxBytes);
    try {
      // `wx`: a temp name is never reused, even by a colliding random suffix.
      await pipeline(metered.stream, createWriteStream(temp, { flags: 'wx', mode: FILE_MODE }));
      await rename(temp, target);
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    } finally {
      metered.release();
    }
    return { size: metered.stream.byteCount, etag: versionEtag(key.version) };
  }

  async get(key: BlobKey, range?: ByteRange): Promise<GetResult> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (e) {
      if (isErrno(e, 'ENOENT')) throw new BlobNotFoundError(key);
      throw e;
    }
    try {
      // Size from the open handle, not the path: a concurrent delete cannot split the two.
      const { size } = await handle.stat();
      // 1 MiB reads: large downloads need far fewer syscalls and socket writes than at 64 KiB.
      const body = handle.createReadStream({
        highWaterMark: READ_CHUNK_BYTES,
        ...(range ? { start: range.start, end: range.end } : {}),
      });
      return { body, size };
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async copy(from: BlobKey, to: BlobKey): Promise<void> {
    const source = this.pathOf(from);
    const target = this.pathOf(to);
    const dir = this.dirOf(to.ref, to.bucket);
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    const temp = this.tempPath(dir);
    try {
      // FICLONE: a reflink where the file system has them (btrfs, XFS, APFS), else a byte copy.
      await copyFile(source, temp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      await rename(temp, target);
    } catch (e) {
      await rm(temp, { force: true });
      if (isErrno(e, 'ENOENT')) throw new BlobNotFoundError(from);
      throw e;
    }
  }

  async delete(keys: readonly BlobKey[]): Promise<void> {
    // Every key is checked before anything is removed: one bad key deletes nothing.
    const paths = keys.map((key) => this.pathOf(key));
    for (let i = 0; i < paths.length; i += DELETE_CONCURRENCY) {
      await Promise.all(paths.slice(i, i + DELETE_CONCURRENCY).map(unlinkIfPresent));
    }
  }

  async deleteAll(ref: string, bucket?: string): Promise<void> {
    const dir = bucket === undefined ? this.refDir(ref) : this.dirOf(ref, bucket);
    await rm(dir, { recursive: true, force: true });
  }

  private pathOf(key: BlobKey): string {
    return this.inRoot(...keySegments(key));
  }

  private refDir(ref: string): string {
    assertRef(ref);
    return this.inRoot(ref);
  }

  private dirOf(ref: string, bucket: string): string {
    assertRef(ref);
    return this.inRoot(ref, encodeBucket(bucket));
  }

  private tempPath(dir: string): string {
    return join(dir, `.tmp-${randomBytes(12).toString('hex')}`);
  }

  /** Joins validated segments; the containment check is the backstop if validation ever slips. */
  private inRoot(...segments: string[]): string {
    const path = resolve(this.root, ...segments);
    if (!path.startsWith(this.root + sep)) {
      throw new Error(`Blob path escapes the storage root: ${segments.join('/')}`);
    }
    return path;
  }
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (e) {
    if (!isErrno(e, 'ENOENT')) throw e;
  }
}
