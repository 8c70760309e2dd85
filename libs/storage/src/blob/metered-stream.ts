import { createHash } from 'node:crypto';
import { finished, Readable, Transform, TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './blob-store';

/**
 * Counts and MD5-hashes the bytes of an upload as they pass, and fails with BlobTooLargeError
 * on the chunk that crosses `maxBytes`, before that chunk reaches storage.
 */
export class MeteredStream extends Transform {
  // Not `size` or `length`: lib-storage's Upload reads those as the body's total length.
  byteCount = 0;
  private readonly md5 = createHash('md5');

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.byteCount += chunk.length;
    if (this.byteCount > this.maxBytes) {
      done(new BlobTooLargeError(this.maxBytes));
      return;
    }
    this.md5.update(chunk);
    done(null, chunk);
  }

  /** The quoted strong ETag; valid once the stream has ended, callable once. */
  etag(): string {
    return `"${this.md5.digest('hex')}"`;
  }
}

export interface MeteredBody {
  stream: MeteredStream;
  /** Detaches from the body; call once the write has settled, whatever the outcome. */
  release(): void;
}

/**
 * Pipes `body` into a MeteredStream. A body error or premature close destroys the meter with
 * that error, which fails the write downstream. The body itself is never destroyed here: it
 * belongs to the caller (an HTTP request must stay open to answer 413), so a failed write only
 * unpipes it.
 *
 * Call this right before handing the stream to its consumer, without awaiting in between: the
 * consumer's error handling must be attached before the meter can fail.
 */
export function meterBody(body: Readable, maxBytes: number): MeteredBody {
  const stream = new MeteredStream(maxBytes);
  if (body.errored) {
    stream.destroy(body.errored);
  } else if (body.readableEnded || body.destroyed) {
    stream.destroy(new Error('The upload body was already consumed'));
  }
  const stopWatching = finished(body, { writable: false }, (err) => {
    if (err) stream.destroy(err);
  });
  if (!stream.destroyed) body.pipe(stream);
  return {
    stream,
    release: () => {
      stopWatching();
      body.unpipe(stream);
      if (!stream.writableFinished) stream.destroy();
    },
  };
}
