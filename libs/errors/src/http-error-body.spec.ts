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

  it('renders the reason phrase as `error`', () => {
    expect(errorBody(new AppError(Errors.unauthorized('x').code, 401, 'bad token'))).toEqual({
      error: 'Unauthorized',
      code: 'unauthorized',
      message: 'bad token',
    });
  });
});
