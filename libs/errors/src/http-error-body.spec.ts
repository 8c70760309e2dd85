import { AppError, Errors } from './app-error';
import { errorBody, toAppError } from './http-error-body';

describe('toAppError', () => {
  it('passes AppErrors through', () => {
    const e = Errors.projectNotFound('x');
    expect(toAppError(e)).toBe(e);
  });

  it.each([
    [{ statusCode: 404, message: 'gone' }, 404, 'not_found'],
    [{ status: 403, message: 'no' }, 403, 'forbidden'],
    [{ statusCode: 413, message: 'big' }, 413, 'payload_too_large'],
    [{ statusCode: 415, message: 'type' }, 415, 'bad_request'],
    [
      { statusCode: 400, type: 'entity.parse.failed', message: 'Unexpected token' },
      400,
      'bad_request',
    ],
  ])('keeps the 4xx status of %j', (thrown, status, code) => {
    const err = toAppError(thrown);
    expect(err.status).toBe(status);
    expect(err.code).toBe(code);
  });

  it('turns anything else into a 500 that keeps the cause but shows nothing of it', () => {
    const cause = new Error('connection string postgres://secret@db');
    const err = toAppError(cause);
    expect(err.status).toBe(500);
    expect(err.cause).toBe(cause);
    expect(JSON.stringify(errorBody(err))).not.toContain('secret');
  });

  describe('PostgreSQL errors', () => {
    // The shape `pg` throws: an Error with the SQLSTATE as `code` and the statement's detail.
    const pgError = (code: string, message = 'invalid byte sequence for encoding "UTF8": 0x00') =>
      Object.assign(new Error(message), {
        code,
        severity: 'ERROR',
        detail: 'Failing row contains (secret-ish, values)',
      });
    // TypeORM's QueryFailedError: the driver error under `driverError`, the SQL beside it.
    const wrapped = (code: string) =>
      Object.assign(new Error('null value in column "site_url" violates not-null constraint'), {
        name: 'QueryFailedError',
        query: 'UPDATE "project_auth_configs" SET "site_url" = $1',
        parameters: [null],
        driverError: pgError(code),
      });

    it.each(['22021', '22001', '22P02', '22003', '22P05', '22023', '23502'])(
      'turns SQLSTATE %s, raw or wrapped by TypeORM, into a 400 that shows no SQL',
      (code) => {
        for (const thrown of [pgError(code), wrapped(code)]) {
          const err = toAppError(thrown);
          expect(err).toMatchObject({ status: 400, code: 'bad_request' });
          expect(err.message).toMatch(/^Invalid input: /);
          expect(err.cause).toBe(thrown);
          const body = JSON.stringify(errorBody(err));
          for (const leak of ['UTF8', 'site_url', 'UPDATE', 'Failing row', code])
            expect(body).not.toContain(leak);
        }
      },
    );

    it.each([
      ['a unique violation', '23505'],
      ['a foreign key violation', '23503'],
      ['a check violation', '23514'],
      ['an undefined table', '42P01'],
      ['an insufficient privilege', '42501'],
      ['a connection failure', '08006'],
      ['too many connections', '53300'],
    ])('keeps %s (%s) a 500', (_label, code) => {
      expect(toAppError(pgError(code, 'x'))).toMatchObject({ status: 500, code: 'internal_error' });
      expect(toAppError(wrapped(code))).toMatchObject({ status: 500, code: 'internal_error' });
    });

    it('needs an Error carrying a SQLSTATE, not any object with a similar code', () => {
      expect(toAppError({ code: '22021' })).toMatchObject({ status: 500 });
      expect(toAppError(Object.assign(new Error('x'), { code: 22021 }))).toMatchObject({
        status: 500,
      });
      expect(toAppError(Object.assign(new Error('x'), { code: '220210' }))).toMatchObject({
        status: 500,
      });
    });
  });

  it('renders the reason phrase as `error`', () => {
    expect(errorBody(new AppError(Errors.unauthorized('x').code, 401, 'bad token'))).toEqual({
      error: 'Unauthorized',
      code: 'unauthorized',
      message: 'bad token',
    });
  });

  it('renders an unavailable dependency as a 503 the client may retry', () => {
    expect(errorBody(Errors.unavailable('The job queue is unavailable'))).toEqual({
      error: 'Service Unavailable',
      code: 'service_unavailable',
      message: 'The job queue is unavailable',
    });
  });
});
