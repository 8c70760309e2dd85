import type { PoolClient } from 'pg';
import { serialize } from 'pg-protocol';
// pg's own value serialisation (dates, buffers, arrays, objects), as client.query uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (v: unknown) => unknown };

/** One statement of a pipeline; rows come back as text, keyed by column name. */
export interface PipelineStatement {
  text: string;
  values: unknown[];
}

export type TextRow = Record<string, string | null>;

interface Field {
  name: string;
}

/** The slice of pg's Connection a submittable drives (pg 8). */
interface Connection {
  stream: { write(buffer: Buffer): boolean };
}

/**
 * Several statements sent in one write and answered in one round trip, through pg's
 * "submittable" extension point (the one pg-cursor uses): Parse/Bind/Describe/Execute for
 * each, then a single Sync. PostgreSQL runs everything before the Sync in one implicit
 * transaction, so `set_config(..., true)` of an earlier statement holds for the later ones
 * and an error rolls all of it back; the first error is reported and the rest skipped.
 */
class PipelineQuery {
  private readonly results: TextRow[][];
  private fields: Field[] = [];
  private index = 0;

  constructor(
    private readonly statements: PipelineStatement[],
    private readonly done: (error: unknown, results?: TextRow[][]) => void,
  ) {
    this.results = statements.map(() => []);
  }

  submit(connection: Connection): void {
    // One buffer, one write: on this kind of machine the syscall is the expensive part.
    const messages: Buffer[] = [];
    for (const s of this.statements) {
      messages.push(
        serialize.parse({ text: s.text, types: [] }),
        serialize.bind({ values: s.values.map((v) => prepareValue(v)) as Array<string | null> }),
        serialize.describe({ type: 'P' }),
        serialize.execute({ rows: 0 }),
      );
    }
    messages.push(serialize.sync());
    connection.stream.write(Buffer.concat(messages));
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    this.fields = msg.fields;
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    const row: TextRow = {};
    this.fields.forEach((f, i) => {
      row[f.name] = msg.fields[i] ?? null;
    });
    this.results[this.index]?.push(row);
  }

  handleCommandComplete(): void {
    this.index++;
    this.fields = [];
  }

  handleEmptyQuery(): void {
    this.index++;
  }

  handlePortalSuspended(): void {
    // rows: 0 fetches everything; a suspended portal cannot happen.
  }

  handleError(error: unknown): void {
    // PostgreSQL skips to our Sync after an error. pg detaches the query on an error
    // message, so the ReadyForQuery that follows is not routed here (pg holds further
    // queries on this client until it arrives): the pipeline ends now.
    this.done(error, this.results);
  }

  handleReadyForQuery(): void {
    this.done(undefined, this.results);
  }

  handleCopyInResponse(): void {
    // Not a COPY pipeline.
  }

  handleCopyData(): void {
    // Not a COPY pipeline.
  }
}

/** A pipeline failed: `error` is the first error, `partial` the rows received before it. */
export class PipelineError extends Error {
  override name = 'PipelineError';
  constructor(
    readonly error: unknown,
    readonly partial: TextRow[][],
  ) {
    super(error instanceof Error ? error.message : 'Pipeline failed');
  }

  /** The server answered with an error (the connection is fine and idle again). */
  get fromServer(): boolean {
    return this.error instanceof Error && 'severity' in this.error;
  }
}

/**
 * Runs `statements` as one pipelined round trip on `client` (which must be idle, outside
 * any transaction); resolves with each statement's rows. The whole batch is one implicit
 * transaction.
 */
export function runPipeline(
  client: PoolClient,
  statements: PipelineStatement[],
): Promise<TextRow[][]> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const query = new PipelineQuery(statements, (error, results) => {
      if (settled) return;
      settled = true;
      if (error) reject(new PipelineError(error, results ?? []));
      else resolve(results!);
    });
    (client as unknown as { query(q: PipelineQuery): void }).query(query);
  });
}
