import {
  DatabaseConnectionError,
  PipelinedStatementError,
  type PipelineOutcome,
  type PipelinedResult,
  type RequestContext,
} from '@baseplate/database';
import { buildCountQuery, buildStatement, type MainRow, type Statement } from '../build/sql';
import { buildOpenApi } from '../openapi/openapi';
import { decodeQueryString, parseRequest } from '../parse';
import type { ParsedRequest, Preferences } from '../parse/ast';
import { plan as planRequest, type Target } from '../plan/plan';
import { negotiateMedia } from '../plan/media';
import type { Plan } from '../plan/types';
import { PostgrestError } from '../postgrest-error';
import { fromDatabaseError, RaisedPostgrestError } from '../render/pg-error';
import { loadSchemaCache } from '../schema/load';
import { NEVER_EXPOSED_SCHEMAS, type SchemaCache } from '../schema/types';
import { SchemaCacheStore } from './schema-cache-store';

/** A request under `/rest/v1`, as the HTTP layer hands it over. */
export interface RestRequest {
  method: string;
  /** Path after `/rest/v1`, as sent (percent-encoded): `/films`, `/rpc/fn`, `/`. */
  path: string;
  /** Raw query string without `?`. */
  query: string;
  /** Lower-case header names. */
  headers: Record<string, string | string[] | undefined>;
  /** Raw body text (JSON, CSV, form, plain). */
  body?: string;
}

export interface RestResponse {
  status: number;
  headers: Record<string, string>;
  /** Absent for HEAD and 204. */
  body?: string;
}

/** Per-project REST settings (from the control database). */
export interface RestProjectSettings {
  schemas: string[];
  extraSearchPath: string[];
  maxRows: number;
}

export interface TransactionOptions {
  searchPath: string[];
  readOnly: boolean;
}

/** Runs `fn` in the request transaction (role, claims, search_path set; version read). */
export type TransactionRunner = <T>(
  options: TransactionOptions,
  fn: (tx: RequestContext) => Promise<T>,
) => Promise<T>;

/**
 * Runs a read-only request transaction (read-only mode, settings, `statement`) in one
 * pipelined round trip (pipelinedRead in @baseplate/database): the read fast path.
 */
export type PipelineRunner = (
  options: { searchPath: string[]; generation: number },
  statement: Statement,
) => Promise<PipelinedResult>;

/**
 * Runs a read-write request transaction in two round trips (pipelinedTransaction in
 * @baseplate/database): BEGIN + settings + `statement`, then the COMMIT or ROLLBACK that
 * `finish` picks after seeing the rows: the write fast path.
 */
export type WritePipelineRunner = <T>(
  options: { searchPath: string[]; generation: number },
  statement: Statement,
  finish: (result: PipelinedResult) => PipelineOutcome<T>,
) => Promise<T>;

export interface RestCall {
  request: RestRequest;
  settings: RestProjectSettings;
  /** The database role of the caller: 42501 is a 401 for anon and a 403 otherwise. */
  role: string;
  /** Key of the project's schema cache (ref and database). */
  cacheKey: string;
  run: TransactionRunner;
  /** Optional read fast path; without it every request takes `run`. */
  pipeline?: PipelineRunner;
  /** Optional write fast path; without it every write takes `run`. */
  pipelineWrite?: WritePipelineRunner;
  /** `basePath` of the OpenAPI document (the URL prefix the client used). */
  basePath?: string;
}

const header = (h: RestRequest['headers'], name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

const JSON_ERROR_TYPE = 'application/json; charset=utf-8';

export function errorResponse(error: PostgrestError): RestResponse {
  const headers: Record<string, string> = {
    'content-type': JSON_ERROR_TYPE,
    'proxy-status': `PostgREST; error=${error.code}`,
  };
  if (error instanceof RaisedPostgrestError) Object.assign(headers, error.headers);
  // The spec's section 7 wants a string `error`; supabase-js reads the four PostgREST keys.
  const body = JSON.stringify({ ...error.toJSON(), error: error.message });
  return { status: error.status, headers, body };
}

type Route = { kind: 'root' } | Target;

function route(path: string): Route {
  const segments = path.split('/').filter((s, i) => i > 0 || s !== '');
  const decoded = segments.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw invalidPath();
    }
  });
  if (decoded.length === 0 || (decoded.length === 1 && decoded[0] === '')) return { kind: 'root' };
  if (decoded.length === 1) return { kind: 'table', name: decoded[0]! };
  if (decoded.length === 2 && decoded[0] === 'rpc' && decoded[1] !== '') {
    return { kind: 'rpc', name: decoded[1]! };
  }
  throw invalidPath();
}

const invalidPath = (): PostgrestError =>
  new PostgrestError('PGRST125', 404, 'Invalid path specified in request URL');

/** The profile schema: Accept-Profile for reads, Content-Profile for writes (PGRST106). */
function profile(
  request: RestRequest,
  settings: RestProjectSettings,
): { schema: string; explicit: boolean } {
  const exposed = settings.schemas.filter((s) => !NEVER_EXPOSED_SCHEMAS.includes(s));
  const read = ['GET', 'HEAD', 'OPTIONS'].includes(request.method);
  const asked = header(request.headers, read ? 'accept-profile' : 'content-profile');
  if (asked === undefined || asked === '') {
    const first = exposed[0];
    if (first === undefined) throw invalidSchema('public', exposed);
    return { schema: first, explicit: false };
  }
  if (!exposed.includes(asked)) throw invalidSchema(asked, exposed);
  return { schema: asked, explicit: true };
}

const invalidSchema = (schema: string, exposed: string[]): PostgrestError =>
  new PostgrestError(
    'PGRST106',
    406,
    `Invalid schema: ${schema}`,
    null,
    `Only the following schemas are exposed: ${exposed.join(', ')}`,
  );

/** PGRST003 when the pool wait ran out, PGRST000 when the database could not be reached. */
function connectionError(e: DatabaseConnectionError): PostgrestError {
  return e.timedOut
    ? new PostgrestError('PGRST003', 504, 'Timed out acquiring connection from connection pool.')
    : new PostgrestError(
        'PGRST000',
        503,
        'Database connection error. Retrying the connection.',
        'The project database is not reachable.',
      );
}

const SINGULAR_MESSAGE = 'Cannot coerce the result to a single JSON object';

/**
 * The REST engine's entry point: parse → (schema cache) → plan → build → execute → render,
 * with every failure rendered as PostgREST's error JSON.
 */
export class RestEngine {
  constructor(readonly caches = new SchemaCacheStore()) {}

  async handle(call: RestCall): Promise<RestResponse> {
    try {
      return await this.serve(call);
    } catch (e) {
      if (e instanceof PostgrestError) return errorResponse(e);
      if (e instanceof DatabaseConnectionError) return errorResponse(connectionError(e));
      const mapped = fromDatabaseError(e, call.role);
      if (mapped) return errorResponse(mapped);
      throw e;
    }
  }

  private async serve(call: RestCall): Promise<RestResponse> {
    const { request, settings } = call;
    const method = request.method.toUpperCase();
    const target = route(request.path);
    if (method === 'OPTIONS') return options(target);
    const { schema, explicit } = profile(request, settings);
    const searchPath = [...new Set([schema, ...settings.extraSearchPath])];
    const parsed = parseRequest({
      params: decodeQueryString(request.query),
      headers: {
        ...(header(request.headers, 'prefer') === undefined
          ? {}
          : { prefer: header(request.headers, 'prefer')! }),
        ...(header(request.headers, 'range') === undefined
          ? {}
          : { range: header(request.headers, 'range')! }),
      },
      method,
      rpc: target.kind === 'rpc' && (method === 'GET' || method === 'HEAD'),
    });
    const profileHeader: Record<string, string> =
      explicit || settings.schemas.length > 1 ? { 'content-profile': schema } : {};
    if (target.kind === 'root') {
      return this.openApi(call, method, schema, searchPath, profileHeader);
    }
    const readOnly = method === 'GET' || method === 'HEAD';
    const planWith = (cache: SchemaCache): Plan =>
      planRequest({
        method,
        target,
        request: parsed,
        schema,
        cache,
        body: {
          ...(header(request.headers, 'content-type') === undefined
            ? {}
            : { contentType: header(request.headers, 'content-type')! }),
          ...(request.body === undefined ? {} : { text: request.body }),
        },
        accept: header(request.headers, 'accept'),
        maxRows: settings.maxRows,
      });
    const fast = await this.pipelined(call, planWith, parsed, searchPath, readOnly);
    if (fast) {
      Object.assign(fast.headers, profileHeader);
      return fast;
    }
    return call.run({ searchPath, readOnly }, async (tx) => {
      const cache = await this.cacheFor(call, tx);
      const plan = planWith(cache);
      if (plan.action === 'call' && plan.readOnly && !readOnly) {
        // STABLE/IMMUTABLE functions run read-only, as in PostgREST.
        await tx.client.query('SET TRANSACTION READ ONLY');
      }
      const timezone = await applyTimezone(tx, parsed.preferences);
      const statement = buildStatement(plan);
      const { rows } = await tx.client.query<MainRow>(statement.text, statement.values);
      const row = rows[0]!;
      let total = totalOf(row);
      if (plan.action === 'read' && (plan.count === 'planned' || plan.count === 'estimated')) {
        const planned = await plannedCount(tx, plan);
        total =
          plan.count === 'planned'
            ? planned
            : total! > plan.maxRows
              ? Math.max(total!, planned)
              : total;
      }
      const response = render(plan, row, total, parsed, timezone);
      if (parsed.preferences.tx === 'rollback') tx.markRollback();
      Object.assign(response.headers, profileHeader);
      return response;
    });
  }

  /**
   * The fast paths: plan with the cache already loaded and run the request pipelined (a
   * read in one round trip; a write in two, its COMMIT or ROLLBACK chosen after the singular
   * / max-affected / `tx` checks). The answer is kept only if the schema version the
   * transaction read is the cache's; otherwise (no cache yet, a stale one, a preference that
   * needs a statement of its own) answer undefined and let the checked path run.
   */
  private async pipelined(
    call: RestCall,
    planWith: (cache: SchemaCache) => Plan,
    parsed: ParsedRequest,
    searchPath: string[],
    readOnly: boolean,
  ): Promise<RestResponse | undefined> {
    const cache = this.caches.peek(call.cacheKey);
    const prefs = parsed.preferences;
    if (
      !cache ||
      prefs.timezone !== undefined ||
      prefs.count === 'planned' ||
      prefs.count === 'estimated'
    ) {
      return undefined;
    }
    let plan: Plan;
    try {
      plan = planWith(cache);
    } catch {
      // Possibly a stale cache (a table created a moment ago): the checked path decides.
      return undefined;
    }
    // Read-only calls through POST need SET TRANSACTION READ ONLY first: the checked path.
    const planReadOnly = plan.action === 'read' || (plan.action === 'call' && plan.readOnly);
    if (planReadOnly !== readOnly) return undefined;
    const options = { searchPath, generation: cache.version };
    const statement = buildStatement(plan);
    const answer = (result: PipelinedResult): RestResponse | undefined => {
      if (result.schemaVersion !== cache.version) return undefined;
      const row = result.rows[0] as MainRow;
      return render(plan, row, totalOf(row), parsed, undefined);
    };
    try {
      if (readOnly) return call.pipeline && answer(await call.pipeline(options, statement));
      if (!call.pipelineWrite) return undefined;
      return await call.pipelineWrite(options, statement, (result) => {
        const response = answer(result);
        return { commit: response !== undefined && prefs.tx !== 'rollback', value: response };
      });
    } catch (e) {
      if (e instanceof PipelinedStatementError) {
        // Under the current cache the error is the caller's; under a stale one, retry.
        if (e.schemaVersion === cache.version) throw e.error;
        return undefined;
      }
      throw e;
    }
  }

  private async cacheFor(call: RestCall, tx: RequestContext): Promise<SchemaCache> {
    return this.caches.get(call.cacheKey, tx.schemaVersion, () =>
      loadSchemaCache(tx.client, tx.schemaVersion),
    );
  }

  private async openApi(
    call: RestCall,
    method: string,
    schema: string,
    searchPath: string[],
    profileHeader: Record<string, string>,
  ): Promise<RestResponse> {
    if (method !== 'GET' && method !== 'HEAD') {
      throw new PostgrestError('PGRST117', 405, `Unsupported HTTP method: ${method}`);
    }
    // Supabase restricts the schema document to privileged keys (2026).
    if (call.role !== 'service_role') {
      throw new PostgrestError(
        call.role === 'anon' ? 'PGRST301' : '42501',
        call.role === 'anon' ? 401 : 403,
        'The OpenAPI document requires the service key',
      );
    }
    const media = negotiateMedia(header(call.request.headers, 'accept'), true);
    const cache = await call.run({ searchPath, readOnly: true }, (tx) => this.cacheFor(call, tx));
    const doc = buildOpenApi(cache, {
      schema,
      basePath: call.basePath ?? '/rest/v1',
      version: '13.0.0',
    });
    return {
      status: 200,
      headers: { 'content-type': media.contentType, ...profileHeader },
      ...(method === 'HEAD' ? {} : { body: JSON.stringify(doc) }),
    };
  }
}

function options(target: Route): RestResponse {
  const allow =
    target.kind === 'rpc'
      ? 'OPTIONS,GET,HEAD,POST'
      : target.kind === 'root'
        ? 'OPTIONS,GET,HEAD'
        : 'OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE';
  return { status: 200, headers: { allow } };
}

/** `Prefer: timezone=...`: applied when it names a known zone, else ignored (lenient). */
async function applyTimezone(tx: RequestContext, prefs: Preferences): Promise<string | undefined> {
  if (prefs.timezone === undefined) return undefined;
  const { rows } = await tx.client.query<{ applied: string | null }>(
    `SELECT set_config('timezone', name, true) AS applied FROM pg_catalog.pg_timezone_names WHERE name = $1 LIMIT 1`,
    [prefs.timezone],
  );
  return rows[0]?.applied === undefined ? undefined : prefs.timezone;
}

async function plannedCount(
  tx: RequestContext,
  plan: Extract<Plan, { action: 'read' }>,
): Promise<number> {
  const statement = buildCountQuery(plan);
  const { rows } = await tx.client.query<{
    'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }>;
  }>(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
  return Number(rows[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Render

/** The counted total of a main statement's row (`Prefer: count`), if it counted. */
const totalOf = (row: MainRow): number | undefined =>
  row.total_result_set === null ? undefined : Number(row.total_result_set);

function contentRange(lower: number, pageTotal: number, total: number | undefined): string {
  const totalText = total === undefined ? '*' : String(total);
  if (pageTotal === 0 || total === 0) return `*/${totalText}`;
  return `${lower}-${lower + pageTotal - 1}/${totalText}`;
}

function preferenceApplied(
  plan: Plan,
  prefs: Preferences,
  timezone: string | undefined,
): string | undefined {
  const applied: string[] = [];
  if (plan.action === 'write') {
    if (plan.onConflict) applied.push(`resolution=${plan.onConflict.resolution}`);
    if (prefs.missing && plan.kind !== 'delete') applied.push(`missing=${prefs.missing}`);
    if (prefs.return) applied.push(`return=${prefs.return}`);
  }
  if (prefs.count) applied.push(`count=${prefs.count}`);
  if (prefs.tx) applied.push(`tx=${prefs.tx}`);
  if (prefs.handling) applied.push(`handling=${prefs.handling}`);
  if (timezone) applied.push(`timezone=${timezone}`);
  if (prefs.handling === 'strict' && prefs.maxAffected !== undefined) {
    applied.push(`max-affected=${prefs.maxAffected}`);
  }
  return applied.length > 0 ? applied.join(', ') : undefined;
}

function responseGucs(row: MainRow): { headers: Record<string, string>; status?: number } {
  const headers: Record<string, string> = {};
  if (row.response_headers !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.response_headers);
    } catch {
      parsed = undefined;
    }
    const valid =
      Array.isArray(parsed) &&
      parsed.every(
        (h) =>
          typeof h === 'object' &&
          h !== null &&
          Object.keys(h).length === 1 &&
          typeof Object.values(h)[0] === 'string',
      );
    if (!valid) {
      throw new PostgrestError(
        'PGRST111',
        500,
        'response.headers guc must be a JSON array composed of objects with a single key and a string value',
      );
    }
    for (const h of parsed as Array<Record<string, string>>) {
      const [k, v] = Object.entries(h)[0]!;
      headers[k.toLowerCase()] = v;
    }
  }
  if (row.response_status === null) return { headers };
  const status = Number(row.response_status);
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new PostgrestError('PGRST112', 500, 'response.status guc must be a valid status code');
  }
  return { headers, status };
}

function singular(pageTotal: number): PostgrestError {
  return new PostgrestError(
    'PGRST116',
    406,
    SINGULAR_MESSAGE,
    `The result contains ${pageTotal} rows`,
  );
}

function render(
  plan: Plan,
  row: MainRow,
  total: number | undefined,
  parsed: ParsedRequest,
  timezone: string | undefined,
): RestResponse {
  const prefs = parsed.preferences;
  const pageTotal = Number(row.page_total);
  const media = plan.media;
  // Failed checks throw inside the transaction, so it rolls back (also for writes).
  if (media.type === 'object' && pageTotal !== 1) throw singular(pageTotal);
  const strictMax = prefs.handling === 'strict' && prefs.maxAffected !== undefined;
  if (strictMax && plan.action === 'call' && !plan.fn.returns.setOf) {
    throw new PostgrestError(
      'PGRST128',
      400,
      'Function must return SETOF or TABLE when max-affected preference is used with handling=strict',
    );
  }
  if (
    strictMax &&
    ((plan.action === 'write' && plan.kind !== 'insert') || plan.action === 'call') &&
    pageTotal > prefs.maxAffected!
  ) {
    throw new PostgrestError(
      'PGRST124',
      400,
      'Query result exceeds max-affected preference constraint',
      `The query affects ${pageTotal} rows`,
    );
  }
  const gucs = responseGucs(row);
  const headers: Record<string, string> = {};
  const applied = preferenceApplied(plan, prefs, timezone);
  if (applied) headers['preference-applied'] = applied;
  let status: number;
  let body: string | undefined;
  if (plan.action === 'write') {
    ({ status, body } = renderWrite(plan, row, pageTotal, headers));
    if (plan.put) {
      // PostgREST sends no Content-Range for PUT.
    } else if (plan.kind === 'insert' || plan.kind === 'delete') {
      headers['content-range'] = `*/${plan.count ? pageTotal : '*'}`;
    } else {
      headers['content-range'] = contentRange(0, pageTotal, plan.count ? pageTotal : undefined);
    }
  } else if (plan.action === 'call' && plan.fn.returns.kind === 'void') {
    status = 204;
  } else {
    const offset =
      plan.action === 'read'
        ? (plan.root.offset ?? 0)
        : (plan.root?.offset ?? plan.scalarRange?.offset ?? 0);
    headers['content-range'] = contentRange(offset, pageTotal, total);
    status = 200;
    if (total !== undefined) {
      if (offset > total && !(offset === 0 && total === 0)) {
        throw new PostgrestError(
          'PGRST103',
          416,
          'Requested range not satisfiable',
          `An offset of ${offset} was requested, but there are only ${total} rows.`,
        );
      }
      if (pageTotal < total) status = 206;
    }
    headers['content-type'] = media.contentType;
    body = row.body ?? undefined;
    if (plan.head) body = undefined;
  }
  Object.assign(headers, gucs.headers);
  if (gucs.status !== undefined) status = gucs.status;
  return { status, headers, ...(body === undefined ? {} : { body }) };
}

function renderWrite(
  plan: Extract<Plan, { action: 'write' }>,
  row: MainRow,
  pageTotal: number,
  headers: Record<string, string>,
): { status: number; body?: string } {
  if (plan.locationKey && row.body) {
    const first = (JSON.parse(row.body) as Array<Record<string, unknown>>)[0];
    if (first) {
      const query = plan.locationKey
        .map((k) =>
          first[k] === null
            ? `${encodeURIComponent(k)}=is.null`
            : `${encodeURIComponent(k)}=eq.${encodeURIComponent(String(first[k]))}`,
        )
        .join('&');
      headers.location = `/${encodeURIComponent(plan.table.name)}?${query}`;
    }
  }
  const represent = plan.returning !== undefined;
  if (represent) headers['content-type'] = plan.media.contentType;
  if (plan.put) {
    if (!represent) return { status: 204 };
    const inserted = Number(row.response_inserted ?? 0) > 0;
    return { status: inserted ? 201 : 200, body: row.body ?? '[]' };
  }
  if (plan.kind === 'insert') {
    const onlyUpdated =
      plan.onConflict?.resolution === 'merge-duplicates' &&
      pageTotal > 0 &&
      Number(row.response_inserted ?? 0) === 0;
    return { status: onlyUpdated ? 200 : 201, ...(represent ? { body: row.body ?? '[]' } : {}) };
  }
  return represent ? { status: 200, body: row.body ?? '[]' } : { status: 204 };
}
