import { Pool, PoolClient } from 'pg';
import { PipelineError, runPipeline, type PipelineRow, type TextRow } from './pipeline';

export interface RequestSettings {
  /** Database role picked by the token's `role` claim (anon, authenticated, service_role). */
  role: string;
  /** Verified JWT claims; `role` is always present, as PostgREST guarantees. */
  claims: Record<string, unknown>;
  method: string;
  path: string;
  /** Schemas for search_path, first one first. */
  searchPath: string[];
  /** Lower-cased request headers (no cookies, no credentials beyond what policies may read). */
  headers?: Record<string, string>;
  readOnly?: boolean;
  /** Transaction-local statement_timeout; the server's setting applies when absent. */
  statementTimeoutMs?: number;
}

export interface RequestContext {
  client: PoolClient;
  /** `_platform.schema_version` as seen inside this transaction. */
  schemaVersion: number;
  /** Ends the transaction with ROLLBACK instead of COMMIT (Prefer: tx=rollback, failed checks). */
  markRollback(): void;
}

// The legacy per-claim settings are blanked for the transaction: auth.uid() reads them
// first (as Supabase's does), and SQL that set them session-wide on this pooled
// connection must not hand its value to the next request.
const SETTINGS_SQL = `SELECT
  set_config('search_path', $1, true),
  set_config('role', $2, true),
  set_config('request.jwt.claims', $3, true),
  set_config('request.method', $4, true),
  set_config('request.path', $5, true),
  set_config('request.headers', $6, true),
  set_config('request.jwt.claim.sub', '', true),
  set_config('request.jwt.claim.role', '', true),
  CASE WHEN $7::text IS NULL THEN NULL ELSE set_config('statement_timeout', $7::text, true) END,
  (SELECT version FROM _platform.schema_version WHERE id) AS schema_version`;

/**
 * No connection to the project database could be had (server down, database missing, pool
 * exhausted past its timeout): the caller's request is fine, the service is not (503/504).
 */
export class DatabaseConnectionError extends Error {
  override name = 'DatabaseConnectionError';
  /** The pool's wait for a free connection ran out (PostgREST's PGRST003). */
  readonly timedOut: boolean;
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : 'Could not connect to the database');
    this.timedOut = /timeout exceeded when trying to connect/i.test(this.message);
  }
}

/** A connection from `pool`, or DatabaseConnectionError. */
async function connect(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (e) {
    throw new DatabaseConnectionError(e);
  }
}

export class TransactionAbortedError extends Error {
  override name = 'TransactionAbortedError';
  constructor() {
    super('The transaction was aborted by an earlier error and rolled back');
  }
}

/**
 * The one statement that sets a request's role, claims and request.* settings and reads the
 * schema version. Exported so benchmarks can replay exactly what a request sends.
 */
export function requestSettingsQuery(settings: RequestSettings): {
  text: string;
  values: unknown[];
} {
  const claims = { ...settings.claims, role: settings.role };
  return {
    text: SETTINGS_SQL,
    values: [
      searchPathOf(settings.searchPath),
      settings.role,
      JSON.stringify(claims),
      settings.method,
      settings.path,
      JSON.stringify(settings.headers ?? {}),
      settings.statementTimeoutMs === undefined ? null : String(settings.statementTimeoutMs),
    ],
  };
}

export const searchPathOf = (schemas: string[]): string =>
  schemas.map((s) => `"${s.replace(/"/g, '""')}"`).join(', ');

/**
 * Runs `fn` in one transaction with the request's role and claims set, so Row Level
 * Security policies see the caller through auth.uid(). Settings and the schema version
 * travel in one round trip. Commits on success; rolls back on any error or when `fn`
 * calls `markRollback()`.
 */
export async function withRequestTransaction<T>(
  pool: Pool,
  settings: RequestSettings,
  fn: (ctx: RequestContext) => Promise<T>,
): Promise<T> {
  const client = await connect(pool);
  let broken = false;
  try {
    await client.query(
      settings.readOnly ? 'BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY' : 'BEGIN',
    );
    const settingsQuery = requestSettingsQuery(settings);
    const { rows } = await client.query<{ schema_version: string }>(
      settingsQuery.text,
      settingsQuery.values,
    );
    let rollback = false;
    const result = await fn({
      client,
      schemaVersion: Number(rows[0]!.schema_version),
      markRollback: () => {
        rollback = true;
      },
    });
    if (rollback) {
      await client.query('ROLLBACK');
    } else {
      // COMMIT of a transaction an error already aborted answers ROLLBACK, not an error:
      // `fn` swallowed a failure, and its work is lost, so the request must not succeed.
      const end = await client.query('COMMIT');
      if (end.command === 'ROLLBACK') throw new TransactionAbortedError();
    }
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw e;
  } finally {
    client.release(broken);
  }
}

/** What a pipelined read returns: the schema version its settings read, and the rows. */
export interface PipelinedResult {
  schemaVersion: number;
  rows: TextRow[];
}

/**
 * A pipelined request transaction failed in the database (the transaction is rolled back);
 * `schemaVersion` is known when the settings statement ran before the error.
 */
export class PipelinedStatementError extends Error {
  override name = 'PipelinedStatementError';
  constructor(
    readonly error: unknown,
    readonly schemaVersion: number | undefined,
  ) {
    super(error instanceof Error ? error.message : 'Pipelined read failed');
  }
}

/** The error of a request pipeline whose statement `settingsAt` is the settings one. */
function statementError(e: PipelineError, settingsAt = 1): PipelinedStatementError {
  const version = e.partial[settingsAt]?.[0]?.schema_version;
  return new PipelinedStatementError(e.error, version == null ? undefined : Number(version));
}

const READ_ONLY_SQL = "SELECT set_config('transaction_read_only', 'on', true)";

/**
 * `generation` (the schema version the statement was built for) lets the connection keep
 * its statements prepared; see runPipeline.
 *
 * A read-only request transaction in ONE round trip: read-only mode, the request settings
 * and `statement` pipelined before a single Sync (see runPipeline), so they share one
 * implicit transaction. The caller built `statement` from a schema cache it assumed
 * current and must compare `schemaVersion` with it.
 */
export async function pipelinedRead(
  pool: Pool,
  settings: RequestSettings,
  statement: { text: string; values: unknown[] },
  generation?: number,
): Promise<PipelinedResult> {
  const client = await connect(pool);
  let broken = false;
  try {
    const [, set, rows] = await runPipeline(
      client,
      [{ text: READ_ONLY_SQL, values: [] }, requestSettingsQuery(settings), statement],
      generation,
    );
    return { schemaVersion: Number(set![0]!.schema_version), rows: rows as TextRow[] };
  } catch (e) {
    if (e instanceof PipelineError && e.fromServer) {
      throw statementError(e);
    }
    broken = true;
    throw e instanceof PipelineError ? e.error : e;
  } finally {
    client.release(broken);
  }
}

/** What the caller of pipelinedTransaction decides once it has seen the statement's rows. */
export interface PipelineOutcome<T> {
  commit: boolean;
  value: T;
}

/**
 * A read-write request transaction in two round trips instead of four: BEGIN, the request
 * settings and `statement` pipelined before one Sync (the transaction block stays open),
 * then `finish` looks at the rows and the schema version and picks COMMIT or ROLLBACK. An
 * error thrown by `finish` rolls back and propagates.
 */
export async function pipelinedTransaction<T>(
  pool: Pool,
  settings: RequestSettings,
  statement: { text: string; values: unknown[] },
  finish: (result: PipelinedResult) => PipelineOutcome<T>,
  generation?: number,
): Promise<T> {
  const client = await connect(pool);
  let broken = false;
  const rollback = () =>
    client.query('ROLLBACK').catch(() => {
      broken = true;
    });
  try {
    let results: PipelineRow[][];
    try {
      results = await runPipeline(
        client,
        [{ text: 'BEGIN', values: [] }, requestSettingsQuery(settings), statement],
        generation,
      );
    } catch (e) {
      if (e instanceof PipelineError && e.fromServer) {
        // The failed statement left the BEGIN block open and aborted: end it.
        await rollback();
        throw statementError(e);
      }
      broken = true;
      throw e instanceof PipelineError ? e.error : e;
    }
    let outcome: PipelineOutcome<T>;
    try {
      outcome = finish({
        schemaVersion: Number(results[1]![0]!.schema_version),
        rows: results[2] as TextRow[],
      });
    } catch (e) {
      await rollback();
      throw e;
    }
    if (!outcome.commit) {
      await rollback();
      return outcome.value;
    }
    try {
      const end = await client.query('COMMIT');
      if (end.command === 'ROLLBACK') throw new TransactionAbortedError();
    } catch (e) {
      // A deferred constraint failing at COMMIT: the transaction is already gone.
      if (!(e instanceof TransactionAbortedError) && !(e instanceof Error && 'severity' in e)) {
        broken = true;
      }
      throw e;
    }
    return outcome.value;
  } finally {
    client.release(broken);
  }
}

/** What a pipelined statement returns: the schema version its settings read, and the rows. */
export interface PipelinedStatementResult {
  schemaVersion: number;
  /** Parsed as client.query parses them (Dates, booleans, JSON). */
  rows: Record<string, unknown>[];
}

/**
 * ONE statement in its own transaction, in ONE round trip: the request settings and
 * `statement` pipelined before a single Sync. PostgreSQL runs the two as one implicit
 * transaction and commits it at the Sync, before it answers ReadyForQuery, which is when this
 * resolves: whatever the statement wrote is durable by then (the auth service reports a
 * revoked session only after this). An error rolls all of it back
 * (PipelinedStatementError). For statements that decide everything themselves; a caller
 * that must look at the rows before committing takes pipelinedTransaction.
 */
export async function pipelinedStatement(
  pool: Pool,
  settings: RequestSettings,
  statement: { text: string; values: unknown[] },
  generation?: number,
): Promise<PipelinedStatementResult> {
  const client = await connect(pool);
  let broken = false;
  try {
    const [set, rows] = await runPipeline(
      client,
      [requestSettingsQuery(settings), { ...statement, parse: true }],
      generation,
    );
    return { schemaVersion: Number(set![0]!.schema_version), rows: rows! };
  } catch (e) {
    if (e instanceof PipelineError && e.fromServer) throw statementError(e, 0);
    broken = true;
    throw e instanceof PipelineError ? e.error : e;
  } finally {
    client.release(broken);
  }
}
