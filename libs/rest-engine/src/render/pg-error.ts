import { PostgrestError, PostgrestErrors } from '../postgrest-error';

/**
 * An error raised with `RAISE SQLSTATE 'PGRST'`: the function chose the body, the status and
 * extra response headers (and optionally the reason phrase) itself.
 */
export class RaisedPostgrestError extends PostgrestError {
  constructor(
    code: string,
    status: number,
    message: string,
    details: string | null,
    hint: string | null,
    readonly headers: Record<string, string>,
    readonly statusText: string | null = null,
  ) {
    super(code, status, message, details, hint);
    this.name = 'RaisedPostgrestError';
  }
}

/** What we read of node-postgres' DatabaseError (the ErrorResponse fields of the backend). */
interface ServerError {
  code: string;
  message: string;
  detail?: string;
  hint?: string;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * A server error carries a SQLSTATE and a severity. The severity check keeps out Node's
 * socket errors, whose codes can also be five capitals (`EPIPE`, `EPERM`).
 */
function isServerError(err: unknown): err is ServerError {
  if (!(err instanceof Error)) return false;
  const { code, severity } = err as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && SQLSTATE.test(code) && typeof severity === 'string';
}

/**
 * A PostgreSQL error in PostgREST's body and status (`pgErrorStatus`), or null when `err` did
 * not come from the server (connection failures, our own bugs): the caller handles those.
 * `role` is the role the request ran as; privilege errors are 401 for `anon`, 403 otherwise.
 */
export function fromDatabaseError(err: unknown, role: string): PostgrestError | null {
  if (!isServerError(err)) return null;
  if (err.code === 'PGRST') return fromRaise(err.message, err.detail);
  return new PostgrestError(
    err.code,
    httpStatusOf(err.code, err.message, role),
    err.message,
    err.detail ?? null,
    err.hint ?? null,
  );
}

/** PostgREST's `pgErrorStatus`, row for row (postgrest.md §2.4). */
export function httpStatusOf(code: string, message: string, role: string): number {
  const exact = EXACT_STATUS[code];
  if (exact !== undefined) return exact(message, role);
  if (code.startsWith('PT')) return customStatus(code.slice(2));
  return CLASS_STATUS[code.slice(0, 2)] ?? 400;
}

/** Full SQLSTATEs that differ from their class (checked first). */
const EXACT_STATUS: Record<string, (message: string, role: string) => number> = {
  '23503': () => 409,
  '23505': () => 409,
  '25006': () => 405,
  // pg-safeupdate refuses a DELETE/UPDATE without WHERE: the client's fault, unlike other
  // cardinality violations (a subquery returning two rows inside a view or function).
  // Cardinality violations come from the request (an upsert batch naming one key twice,
  // a subquery of the caller's returning two rows): 400 where PostgREST says 500.
  '21000': () => 400,
  // A JWT naming a role that does not exist fails at SET ROLE (PostgREST v13.0.1+).
  '22023': (m) => (/^role ".*" does not exist$/s.test(m) ? 401 : 400),
  '53400': () => 500,
  '57P01': () => 503,
  P0001: () => 400,
  '42883': (m) => (m.startsWith('function xmlagg(') ? 406 : 404),
  '42P01': () => 404,
  '42P17': () => 500,
  // The anon key's role is `anon`; a privilege or RLS failure there means "log in" (401).
  '42501': (_m, role) => (role === 'anon' ? 401 : 403),
};

/** By SQLSTATE class (first two characters); anything not listed is the client's (400). */
const CLASS_STATUS: Record<string, number> = {
  '08': 503,
  '09': 500,
  '0L': 403,
  '0P': 403,
  '25': 500,
  '28': 403,
  '2D': 500,
  '38': 500,
  '39': 500,
  '3B': 500,
  '40': 500,
  '53': 503,
  // Program limits (a select of 2000 columns, JSON nested 20000 deep) are hit by the
  // request's size: 400 where PostgREST says 500.
  '54': 400,
  '55': 500,
  '57': 500,
  '58': 500,
  F0: 500,
  HV: 500,
  XX: 500,
  P0: 500,
};

/** `PTxyz` answers HTTP xyz; anything that is not a status code is a server error. */
function customStatus(digits: string): number {
  if (!/^[0-9]{3}$/.test(digits)) return 500;
  const status = Number(digits);
  return status >= 100 && status <= 599 ? status : 500;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Absent and null are the same absence; anything but a string there is malformed. */
const optionalString = (v: unknown): v is string | null | undefined =>
  v === undefined || v === null || typeof v === 'string';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * `RAISE SQLSTATE 'PGRST' USING MESSAGE = '{"code","message","details"?,"hint"?}',
 * DETAIL = '{"status","status_text"?,"headers"}'`. Like PostgREST, `headers` is obligatory
 * (an empty object will do) and MESSAGE is checked before DETAIL.
 */
function fromRaise(message: string, detail: string | undefined): PostgrestError {
  const body = parseJson(message);
  if (
    !isObject(body) ||
    typeof body.code !== 'string' ||
    typeof body.message !== 'string' ||
    !optionalString(body.details) ||
    !optionalString(body.hint)
  ) {
    return PostgrestErrors.raiseMessageNotParsed(message);
  }
  if (detail === undefined) return PostgrestErrors.raiseDetailMissing();
  const envelope = parseJson(detail);
  if (
    !isObject(envelope) ||
    !isHttpStatus(envelope.status) ||
    !optionalString(envelope.status_text) ||
    !isHeaderMap(envelope.headers)
  ) {
    return PostgrestErrors.raiseDetailNotParsed(detail);
  }
  return new RaisedPostgrestError(
    body.code,
    envelope.status,
    body.message,
    body.details ?? null,
    body.hint ?? null,
    envelope.headers,
    envelope.status_text ?? null,
  );
}

/**
 * PostgREST takes any integer; Node's HTTP server throws on a status outside 100-999, so
 * we refuse anything outside the real range rather than crash while answering.
 */
const isHttpStatus = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 100 && v <= 599;

const isHeaderMap = (v: unknown): v is Record<string, string> =>
  isObject(v) && Object.values(v).every((value) => typeof value === 'string');
