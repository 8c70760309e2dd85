import { DatabaseError } from 'pg';
import { PostgrestError } from '../postgrest-error';
import { fromDatabaseError, RaisedPostgrestError } from './pg-error';

interface Fields {
  detail?: string;
  hint?: string;
}

/** What node-postgres throws for an ErrorResponse from the backend. */
function pgError(code: string, message: string, fields: Fields = {}): DatabaseError {
  const err = new DatabaseError(message, 0, 'error');
  return Object.assign(err, { severity: 'ERROR', code, ...fields });
}

const statusOf = (code: string, message = 'boom', role = 'authenticated'): number | undefined =>
  fromDatabaseError(pgError(code, message), role)?.status;

describe('fromDatabaseError', () => {
  it('keeps the SQLSTATE, message, detail and hint', () => {
    const err = pgError('23505', 'duplicate key value violates unique constraint "t_pkey"', {
      detail: 'Key (id)=(1) already exists.',
      hint: 'try another',
    });
    const result = fromDatabaseError(err, 'anon');
    expect(result).toBeInstanceOf(PostgrestError);
    expect(result?.status).toBe(409);
    expect(result?.toJSON()).toEqual({
      code: '23505',
      message: 'duplicate key value violates unique constraint "t_pkey"',
      details: 'Key (id)=(1) already exists.',
      hint: 'try another',
    });
  });

  it('answers null details and hint when PostgreSQL sent none', () => {
    expect(fromDatabaseError(pgError('22P02', 'invalid input'), 'anon')?.toJSON()).toEqual({
      code: '22P02',
      message: 'invalid input',
      details: null,
      hint: null,
    });
  });

  it('answers null for anything that did not come from the server', () => {
    expect(fromDatabaseError(new Error('boom'), 'anon')).toBeNull();
    expect(fromDatabaseError('23505', 'anon')).toBeNull();
    expect(fromDatabaseError(null, 'anon')).toBeNull();
    expect(
      fromDatabaseError({ code: '23505', message: 'x', severity: 'ERROR' }, 'anon'),
    ).toBeNull();
    // Socket errors can have five-capital codes too; they carry no severity.
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' });
    expect(fromDatabaseError(epipe, 'anon')).toBeNull();
    const timeout = Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' });
    expect(fromDatabaseError(timeout, 'anon')).toBeNull();
  });

  it('accepts a duck-typed server error (another copy of pg)', () => {
    const err = Object.assign(new Error('permission denied for table t'), {
      code: '42501',
      severity: 'ERROR',
    });
    expect(fromDatabaseError(err, 'anon')?.status).toBe(401);
  });

  describe('maps SQLSTATE to HTTP status like pgErrorStatus', () => {
    const table: Array<[string, number]> = [
      ['08000', 503],
      ['08006', 503],
      ['08P01', 503],
      ['09000', 500],
      ['0L000', 403],
      ['0LP01', 403],
      ['0P000', 403],
      ['23503', 409],
      ['23505', 409],
      ['25006', 405],
      ['25001', 500],
      ['25P02', 500],
      ['28000', 403],
      ['28P01', 403],
      ['2D000', 500],
      ['38000', 500],
      ['38003', 500],
      ['39000', 500],
      ['39P01', 500],
      ['3B000', 500],
      ['3B001', 500],
      ['40001', 500],
      ['40P01', 500],
      ['53400', 500],
      ['53000', 503],
      ['53100', 503],
      ['53200', 503],
      ['53300', 503],
      // Deliberately 400 (PostgREST: 500): the request's own size hits these limits.
      ['54000', 400],
      ['54001', 400],
      ['55000', 500],
      ['55P03', 500],
      ['57P01', 503],
      ['57014', 500],
      ['57P02', 500],
      ['57P03', 500],
      ['58000', 500],
      ['58030', 500],
      ['F0000', 500],
      ['F0001', 500],
      ['HV000', 500],
      ['HV00N', 500],
      ['XX000', 500],
      ['XX001', 500],
      ['P0001', 400],
      ['P0000', 500],
      ['P0002', 500],
      ['P0003', 500],
      ['P0004', 500],
      ['42P01', 404],
      ['42P17', 500],
      ['22P02', 400],
      ['23502', 400],
      ['23514', 400],
      ['42703', 400],
      ['42P10', 400],
      ['42601', 400],
      ['0A000', 400],
      ['22012', 400],
    ];

    it.each(table)('%s -> %i', (code, status) => {
      expect(statusOf(code)).toBe(status);
    });
  });

  it('21000 is always 400 (PostgREST: 400 only for pg-safeupdate): the request caused it', () => {
    expect(statusOf('21000', 'DELETE requires a WHERE clause')).toBe(400);
    expect(statusOf('21000', 'UPDATE requires a WHERE clause')).toBe(400);
    expect(statusOf('21000', 'ON CONFLICT DO UPDATE command cannot affect row a second time')).toBe(
      400,
    );
  });

  it('22023 is 401 only for a missing role', () => {
    expect(statusOf('22023', 'role "ghost" does not exist')).toBe(401);
    expect(statusOf('22023', 'role "with ""quotes""" does not exist')).toBe(401);
    expect(statusOf('22023', 'invalid value for parameter "TimeZone": "x"')).toBe(400);
    expect(statusOf('22023', 'unrecognized role option "x" does not exist, really')).toBe(400);
  });

  it('42883 is 404, or 406 for xmlagg', () => {
    expect(statusOf('42883', 'function public.f(integer) does not exist')).toBe(404);
    expect(statusOf('42883', 'function xmlagg(text) does not exist')).toBe(406);
  });

  it('42501 is 401 for anon and 403 for anyone else', () => {
    const rls = 'new row violates row-level security policy for table "t"';
    expect(statusOf('42501', rls, 'anon')).toBe(401);
    expect(statusOf('42501', rls, 'authenticated')).toBe(403);
    expect(statusOf('42501', rls, 'service_role')).toBe(403);
  });

  it('PTxyz answers HTTP xyz when it is a status code, else 500', () => {
    const raised = fromDatabaseError(
      pgError('PT402', 'Payment Required', { detail: 'Quota exceeded', hint: 'Upgrade' }),
      'authenticated',
    );
    expect(raised?.status).toBe(402);
    expect(raised?.toJSON()).toEqual({
      code: 'PT402',
      message: 'Payment Required',
      details: 'Quota exceeded',
      hint: 'Upgrade',
    });
    expect(statusOf('PT100')).toBe(100);
    expect(statusOf('PT418')).toBe(418);
    expect(statusOf('PT599')).toBe(599);
    expect(statusOf('PT099')).toBe(500);
    expect(statusOf('PT600')).toBe(500);
    expect(statusOf('PT4XX')).toBe(500);
  });
});

describe("fromDatabaseError with RAISE SQLSTATE 'PGRST'", () => {
  const raise = (message: string, detail?: string) =>
    fromDatabaseError(pgError('PGRST', message, detail === undefined ? {} : { detail }), 'anon');

  const parseError = (details: string, hint: string) => ({
    code: 'PGRST121',
    message: `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`,
    details,
    hint,
  });
  const messageHint =
    "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
  const detailHint =
    "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";

  it('takes body, status, reason phrase and headers from the JSON', () => {
    const result = raise(
      '{"code":"123","message":"Payment Required","details":"Quota exceeded","hint":"Upgrade"}',
      '{"status":402,"status_text":"Pay Up","headers":{"X-Powered-By":"Nerd Rage"}}',
    );
    expect(result).toBeInstanceOf(RaisedPostgrestError);
    const raised = result as RaisedPostgrestError;
    expect(raised.status).toBe(402);
    expect(raised.statusText).toBe('Pay Up');
    expect(raised.headers).toEqual({ 'X-Powered-By': 'Nerd Rage' });
    expect(raised.toJSON()).toEqual({
      code: '123',
      message: 'Payment Required',
      details: 'Quota exceeded',
      hint: 'Upgrade',
    });
  });

  it('leaves details, hint and status_text optional', () => {
    const raised = raise('{"code":"123","message":"ABC"}', '{"status":404,"headers":{}}');
    expect(raised).toBeInstanceOf(RaisedPostgrestError);
    expect(raised?.status).toBe(404);
    expect((raised as RaisedPostgrestError).statusText).toBeNull();
    expect((raised as RaisedPostgrestError).headers).toEqual({});
    expect(raised?.toJSON()).toEqual({ code: '123', message: 'ABC', details: null, hint: null });
  });

  it('accepts explicit nulls for the optional keys', () => {
    const raised = raise(
      '{"code":"X","message":"m","details":null,"hint":null}',
      '{"status":401,"status_text":null,"headers":{"WWW-Authenticate":"Bearer"}}',
    );
    expect(raised?.status).toBe(401);
    expect(raised?.toJSON()).toEqual({ code: 'X', message: 'm', details: null, hint: null });
  });

  const badMessages = [
    'INVALID',
    '[1,2]',
    '"just a string"',
    '{"message":"no code"}',
    '{"code":"123"}',
    '{"code":123,"message":"numeric code"}',
    '{"code":"123","message":"m","details":5}',
    '{"code":"123","message":"m","hint":{}}',
  ];

  it.each(badMessages)('refuses MESSAGE %s with PGRST121', (message) => {
    const result = raise(message, '{"status":402,"headers":{}}');
    expect(result?.status).toBe(500);
    expect(result).not.toBeInstanceOf(RaisedPostgrestError);
    expect(result?.toJSON()).toEqual(
      parseError(`Invalid JSON value for MESSAGE: '${message}'`, messageHint),
    );
  });

  it('checks MESSAGE before DETAIL', () => {
    expect(raise('INVALID')?.toJSON()).toEqual(
      parseError("Invalid JSON value for MESSAGE: 'INVALID'", messageHint),
    );
  });

  it('refuses a missing DETAIL with PGRST121', () => {
    const result = raise('{"code":"123","message":"just msg"}');
    expect(result?.status).toBe(500);
    expect(result?.toJSON()).toEqual(
      parseError('DETAIL is missing in the RAISE statement', detailHint),
    );
  });

  const badDetails = [
    'INVALID',
    '',
    '{"status":402}',
    '{"headers":{}}',
    '{"status":"402","headers":{}}',
    '{"status":402.5,"headers":{}}',
    '{"status":42,"headers":{}}',
    '{"status":1000,"headers":{}}',
    '{"status":402,"headers":[]}',
    '{"status":402,"headers":{"X-N":1}}',
    '{"status":402,"status_text":7,"headers":{}}',
  ];

  it.each(badDetails)('refuses DETAIL %p with PGRST121', (detail) => {
    const result = raise('{"code":"123","message":"ok"}', detail);
    expect(result?.status).toBe(500);
    expect(result?.toJSON()).toEqual(
      parseError(`Invalid JSON value for DETAIL: '${detail}'`, detailHint),
    );
  });
});
