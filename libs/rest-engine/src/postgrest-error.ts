/** `details` is text, except for PGRST201 where PostgREST lists the candidate relationships. */
export type ErrorDetails = string | Array<Record<string, string>> | null;

/**
 * Errors of the REST engine in PostgREST's own shape (`{code, details, hint, message}`), kept
 * apart from the platform's AppError because supabase-js matches on these exact codes.
 * The data plane's filter renders them (plus the `error` field the spec asks for).
 */
export class PostgrestError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details: ErrorDetails = null,
    readonly hint: string | null = null,
  ) {
    super(message);
    this.name = 'PostgrestError';
  }

  /** PostgREST serialises the four keys alphabetically, nulls included. */
  toJSON(): { code: string; details: ErrorDetails; hint: string | null; message: string } {
    return { code: this.code, details: this.details, hint: this.hint, message: this.message };
  }
}

export const PostgrestErrors = {
  /** PGRST100: Parsec-style position text, e.g. `"failed to parse filter (x)" (line 1, column 1)`. */
  parse: (what: string, value: string, column: number, details: string): PostgrestError =>
    new PostgrestError(
      'PGRST100',
      400,
      `"failed to parse ${what} (${value})" (line 1, column ${column})`,
      details,
    ),
  /** PGRST103: PostgREST answers bad ranges with 416, not 400. */
  invalidRange: (details: string): PostgrestError =>
    new PostgrestError('PGRST103', 416, 'Requested range not satisfiable', details),
  invalidPreferences: (invalid: readonly string[]): PostgrestError =>
    new PostgrestError(
      'PGRST122',
      400,
      'Invalid preferences given with handling=strict',
      `Invalid preferences: ${invalid.join(', ')}`,
    ),
  /** PGRST121: a `RAISE SQLSTATE 'PGRST'` whose MESSAGE is not the expected JSON object. */
  raiseMessageNotParsed: (message: string): PostgrestError =>
    raiseNotParsed(`Invalid JSON value for MESSAGE: '${message}'`, RAISE_MESSAGE_HINT),
  /** PGRST121: its DETAIL is not the expected JSON object. */
  raiseDetailNotParsed: (detail: string): PostgrestError =>
    raiseNotParsed(`Invalid JSON value for DETAIL: '${detail}'`, RAISE_DETAIL_HINT),
  /** PGRST121: it has no DETAIL at all. */
  raiseDetailMissing: (): PostgrestError =>
    raiseNotParsed('DETAIL is missing in the RAISE statement', RAISE_DETAIL_HINT),
};

const RAISE_MESSAGE_HINT =
  "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
const RAISE_DETAIL_HINT =
  "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";

function raiseNotParsed(details: string, hint: string): PostgrestError {
  return new PostgrestError(
    'PGRST121',
    500,
    `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`,
    details,
    hint,
  );
}
