import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectPinoLogger, PinoLogger } from 'nestjs-pino';
import type { Pool } from 'pg';
import type { LogLine } from '@baseplate/functions-runtime';
import { CONTROL_DB_POOL } from '../project-context';

/** Invocations kept per function (GET .../functions/{slug}/logs reads the newest). */
export const INVOCATIONS_KEPT = 100;
const FLUSH_MS = 500;
const MAX_BUFFER = 500;

export interface InvocationRecord {
  functionId: string;
  version: number;
  status: string;
  httpStatus: number;
  durationMs: number;
  logs: LogLine[];
}

/** The newest `INVOCATIONS_KEPT` records of each function, in call order. */
export function newestPerFunction(records: InvocationRecord[]): InvocationRecord[] {
  const seen = new Map<string, number>();
  const kept: InvocationRecord[] = [];
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    const n = seen.get(r.functionId) ?? 0;
    if (n >= INVOCATIONS_KEPT) continue;
    seen.set(r.functionId, n + 1);
    kept.push(r);
  }
  return kept.reverse();
}

/**
 * Writes invocation records to the control database in batches, off the request path: one
 * write at a time (every half second, or at once when 500 are waiting), each holding only
 * what will be kept (the newest INVOCATIONS_KEPT per function), then pruning the functions
 * touched to their newest INVOCATIONS_KEPT. While the database is slow, the buffer keeps the
 * newest records per function; records past MAX_BUFFER functions' worth are dropped (and
 * counted in the log): an invocation never waits on its own log.
 */
@Injectable()
export class InvocationRecorder implements OnModuleDestroy {
  private buffer: InvocationRecord[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private dropped = 0;

  constructor(
    @Inject(CONTROL_DB_POOL) private readonly pool: Pool,
    @InjectPinoLogger(InvocationRecorder.name) private readonly logger: PinoLogger,
  ) {}

  record(entry: InvocationRecord): void {
    this.buffer.push(entry);
    if (this.buffer.length >= MAX_BUFFER * 4) {
      this.buffer = newestPerFunction(this.buffer);
      const excess = this.buffer.length - MAX_BUFFER * 4;
      if (excess > 0) {
        this.buffer.splice(0, excess);
        this.dropped += excess;
      }
    }
    if (this.buffer.length >= MAX_BUFFER) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes everything buffered; one flush runs at a time and takes what arrives meanwhile. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing ??= (async () => {
      while (this.buffer.length > 0) {
        const batch = newestPerFunction(this.buffer.splice(0));
        await this.write(batch);
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async write(batch: InvocationRecord[]): Promise<void> {
    try {
      // One statement: unnest the columns, insert what still has a function (a deleted one's
      // records are skipped), then prune the functions touched.
      await this.pool.query(
        `WITH incoming AS (
           SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::int[], $6::jsonb[])
             WITH ORDINALITY AS t(function_id, version, status, http_status, duration_ms, logs, n)
         ), inserted AS (
           -- In call order, so ids (and the newest-first listing) follow it.
           INSERT INTO function_invocations (function_id, version, status, http_status, duration_ms, logs)
           SELECT i.function_id, i.version, i.status, i.http_status, i.duration_ms, i.logs
             FROM incoming i WHERE EXISTS (SELECT 1 FROM functions f WHERE f.id = i.function_id)
            ORDER BY i.n
           RETURNING function_id
         )
         DELETE FROM function_invocations WHERE id IN (
           SELECT id FROM (
             SELECT id, function_id, row_number() OVER (PARTITION BY function_id ORDER BY id DESC) AS n
               FROM function_invocations
              WHERE function_id IN (SELECT DISTINCT function_id FROM incoming)
           ) ranked WHERE n > $7 - (SELECT count(*) FROM inserted i WHERE i.function_id = ranked.function_id)
         )`,
        [
          batch.map((r) => r.functionId),
          batch.map((r) => r.version),
          batch.map((r) => r.status),
          batch.map((r) => r.httpStatus),
          batch.map((r) => Math.round(r.durationMs)),
          batch.map((r) => JSON.stringify(r.logs)),
          INVOCATIONS_KEPT,
        ],
      );
      if (this.dropped > 0) {
        this.logger.warn({ dropped: this.dropped }, 'Function invocation records were dropped');
        this.dropped = 0;
      }
    } catch (err) {
      this.dropped += batch.length;
      this.logger.warn({ err, records: batch.length }, 'Function invocation records not written');
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush();
  }
}
