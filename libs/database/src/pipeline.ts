import { types, type PoolClient } from 'pg';
import { serialize } from 'pg-protocol';
// pg's own value serialisation (dates, buffers, arrays, objects), as client.query uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (v: unknown) => unknown };

/** One statement of a pipeline; rows come back keyed by column name. */
export interface PipelineStatement {
  text: string;
  values: unknown[];
  /**
   * Rows parsed by pg's type parsers (Dates, booleans, JSON...), as client.query returns
   * them; otherwise every value is PostgreSQL's text.
   */
  parse?: boolean;
}

export type TextRow = Record<string, string | null>;
/** A row of a pipeline: a TextRow unless its statement asked for `parse`. */
export type PipelineRow = Record<string, unknown>;

interface Field {
  name: string;
  dataTypeID: number;
}

/** The slice of pg's Connection a submittable drives (pg 8). */
interface Connection {
  stream: { write(buffer: Buffer): boolean };
}

/**
 * Server-side prepared statements of one connection, as PostgREST keeps them: a statement
 * text seen before is bound to its name without a Parse, so PostgreSQL neither parses nor
 * re-plans it (its plan cache still revalidates after DDL, a role or a search_path change).
 * Names are never reused: a batch that failed forgets (and later closes) what it parsed.
 */
interface PreparedStatements {
  /** The schema version the names were prepared under; another one starts afresh. */
  generation: number | undefined;
  names: Map<string, string>;
  counter: number;
  /** Names to Close at the start of the next batch (evicted or of a failed batch). */
  toClose: string[];
}

export const PREPARED_PER_CONNECTION = 200;
const prepared = new WeakMap<Connection, PreparedStatements>();

function preparedOf(connection: Connection): PreparedStatements {
  let state = prepared.get(connection);
  if (!state) {
    state = { generation: undefined, names: new Map(), counter: 0, toClose: [] };
    prepared.set(connection, state);
  }
  return state;
}

/**
 * Several statements sent in one write and answered in one round trip, through pg's
 * "submittable" extension point (the one pg-cursor uses): Parse/Bind/Describe/Execute for
 * each, then a single Sync. PostgreSQL runs everything before the Sync in one implicit
 * transaction, so `set_config(..., true)` of an earlier statement holds for the later ones
 * and an error rolls all of it back; the first error is reported and the rest skipped.
 */
class PipelineQuery {
  private readonly results: PipelineRow[][];
  private fields: Field[] = [];
  private parsers: Array<(text: string) => unknown> | undefined;
  private index = 0;
  private state: PreparedStatements | undefined;
  /** Statements this batch parses under a new name: kept on success only. */
  private readonly parsed = new Map<string, string>();

  constructor(
    private readonly statements: PipelineStatement[],
    private readonly done: (error: unknown, results?: PipelineRow[][]) => void,
    /** Schema version the statements were built for (undefined: prepare nothing). */
    private readonly generation: number | undefined,
  ) {
    this.results = statements.map(() => []);
  }

  submit(connection: Connection): void {
    const state = preparedOf(connection);
    this.state = state;
    const reuse = this.generation !== undefined;
    if (reuse && this.generation !== state.generation) {
      // After DDL a prepared statement could keep parameter types the schema no longer
      // has: statements of another schema version are closed, not reused.
      state.toClose.push(...state.names.values());
      state.names.clear();
      state.generation = this.generation;
    }
    // One buffer, one write: on this kind of machine the syscall is the expensive part.
    const messages: Buffer[] = state.toClose.map((name) => serialize.close({ type: 'S', name }));
    state.toClose = [];
    for (const s of this.statements) {
      let name = reuse ? (state.names.get(s.text) ?? this.parsed.get(s.text)) : '';
      if (!reuse) {
        messages.push(serialize.parse({ text: s.text, types: [] }));
      } else if (name === undefined) {
        name = `bp_${++state.counter}`;
        this.parsed.set(s.text, name);
        messages.push(serialize.parse({ name, text: s.text, types: [] }));
      } else if (state.names.has(s.text)) {
        // Most recently used last: eviction takes the oldest.
        state.names.delete(s.text);
        state.names.set(s.text, name);
      }
      messages.push(
        serialize.bind({
          statement: name,
          values: s.values.map((v) => prepareValue(v)) as Array<string | null>,
        }),
        serialize.describe({ type: 'P' }),
        serialize.execute({ rows: 0 }),
      );
    }
    messages.push(serialize.sync());
    connection.stream.write(Buffer.concat(messages));
  }

  /** After the batch: keep what it prepared (success) or close it later (failure). */
  private settle(ok: boolean): void {
    const state = this.state;
    if (!state) return;
    for (const [text, name] of this.parsed) {
      if (!ok) {
        state.toClose.push(name);
        continue;
      }
      state.names.set(text, name);
      if (state.names.size > PREPARED_PER_CONNECTION) {
        const [oldestText, oldestName] = state.names.entries().next().value!;
        state.names.delete(oldestText);
        state.toClose.push(oldestName);
      }
    }
    this.parsed.clear();
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    this.fields = msg.fields;
    this.parsers = this.statements[this.index]?.parse
      ? msg.fields.map((f) => types.getTypeParser(f.dataTypeID, 'text'))
      : undefined;
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    const row: PipelineRow = {};
    const parsers = this.parsers;
    this.fields.forEach((f, i) => {
      const value = msg.fields[i] ?? null;
      row[f.name] = parsers && value !== null ? parsers[i]!(value) : value;
    });
    this.results[this.index]?.push(row);
  }

  handleCommandComplete(): void {
    this.index++;
    this.fields = [];
    this.parsers = undefined;
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
    this.settle(false);
    this.done(error, this.results);
  }

  handleReadyForQuery(): void {
    this.settle(true);
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
    readonly partial: PipelineRow[][],
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
 * transaction. With a `generation` (the schema version the statements were built for) the
 * connection keeps them prepared for the next batch of the same generation.
 */
export function runPipeline(
  client: PoolClient,
  statements: PipelineStatement[],
  generation?: number,
): Promise<PipelineRow[][]> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const query = new PipelineQuery(
      statements,
      (error, results) => {
        if (settled) return;
        settled = true;
        if (error) reject(new PipelineError(error, results ?? []));
        else resolve(results!);
      },
      generation,
    );
    (client as unknown as { query(q: PipelineQuery): void }).query(query);
  });
}
