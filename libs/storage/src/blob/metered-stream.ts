import { finished, Readable, Transform, TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './blob-store';

/**
 * Counts the bytes of an upload as they pass, and fails with BlobTooLargeError on the chunk
 * that crosses `maxBytes`, before that chunk reaches storage. (No content hash: hashing capped
 * uploads at MD5's speed, about half the disk's; the ETag comes from the version instead.)
 */
export class MeteredStream extends Transform {
  // Not `size` or `length`: lib-storage's Upload reads those as the body's total length.
  byteCount = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.byteCount += chunk.length;
    if (this.byteCount > this.maxBytes) {
      done(new BlobTooLargeError(this.maxBytes));
      return;
    }
    done(null, chunk);
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
