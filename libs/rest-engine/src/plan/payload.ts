import { parse as parseCsv } from 'csv-parse/sync';
import { PostgrestError } from '../postgrest-error';

/** A request body as the data plane hands it over: raw text (or bytes), never pre-parsed. */
export interface RawBody {
  contentType?: string;
  text?: string;
}

/** A table payload: rows with the same keys (unless `columns=` is used), as JSON text. */
export interface TablePayload {
  rows: Array<Record<string, unknown>>;
  isArray: boolean;
  /** The JSON text of `rows` as an array: bound as the single payload parameter. */
  json: string;
  /** For a single-object JSON body: its text as sent (numbers keep their precision). */
  objectText?: string;
}

const invalidJson = (): PostgrestError =>
  new PostgrestError('PGRST102', 400, 'Empty or invalid json');

export const mimeOf = (contentType: string | undefined): string =>
  (contentType ?? 'application/json').split(';', 1)[0]!.trim().toLowerCase() || 'application/json';

function parseJson(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') throw invalidJson();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidJson();
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function fromCsv(text: string): Array<Record<string, unknown>> {
  let records: string[][];
  try {
    records = parseCsv(text, { relax_column_count: false, skip_empty_lines: true }) as string[][];
  } catch {
    throw new PostgrestError('PGRST102', 400, 'All lines must have same number of fields');
  }
  const [header, ...lines] = records;
  if (!header) return [];
  return lines.map((line) =>
    Object.fromEntries(header.map((key, i) => [key, line[i] === 'NULL' ? null : line[i]])),
  );
}

/**
 * The body of POST/PATCH/PUT on a table, by Content-Type: JSON (an object is one row, an array
 * many; anything else is no row, as in PostgREST), CSV (header row = keys, `NULL` = null) or
 * form-urlencoded (values are strings). Other types are PGRST102.
 */
export function parseTablePayload(body: RawBody): TablePayload {
  const mime = mimeOf(body.contentType);
  let rows: Array<Record<string, unknown>>;
  let isArray = true;
  let json: string | undefined;
  if (mime === 'application/json') {
    const value = parseJson(body.text);
    if (Array.isArray(value)) {
      if (!value.every(isPlainObject)) {
        throw new PostgrestError('PGRST102', 400, 'All object keys must match');
      }
      rows = value;
      json = body.text;
    } else if (isPlainObject(value)) {
      rows = [value];
      isArray = false;
      // The text goes to PostgreSQL as sent: a JSON.stringify round trip would round numbers.
      json = `[${body.text!}]`;
      return { rows, isArray, json, objectText: body.text! };
    } else {
      rows = [];
    }
  } else if (mime === 'text/csv') {
    rows = fromCsv(body.text ?? '');
  } else if (mime === 'application/x-www-form-urlencoded') {
    rows = [Object.fromEntries(new URLSearchParams(body.text ?? ''))];
    isArray = false;
  } else {
    throw new PostgrestError('PGRST102', 400, `Content-Type not acceptable: ${mime}`);
  }
  return { rows, isArray, json: json ?? JSON.stringify(rows) };
}

/** RPC arguments: a JSON object (an empty body is no argument), or form fields. */
export function parseRpcPayload(
  body: RawBody,
): { args: Record<string, unknown>; json: string } | { raw: string; mime: string } {
  const mime = mimeOf(body.contentType);
  if (mime === 'application/json') {
    if (body.text === undefined || body.text.trim() === '') return { args: {}, json: '{}' };
    const value = parseJson(body.text);
    if (!isPlainObject(value)) throw invalidJson();
    return { args: value, json: body.text };
  }
  if (mime === 'application/x-www-form-urlencoded') {
    const args = Object.fromEntries(new URLSearchParams(body.text ?? ''));
    return { args, json: JSON.stringify(args) };
  }
  if (mime === 'text/plain' || mime === 'text/xml' || mime === 'application/octet-stream') {
    return { raw: body.text ?? '', mime };
  }
  throw new PostgrestError('PGRST102', 400, `Content-Type not acceptable: ${mime}`);
}
