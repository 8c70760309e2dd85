import {
  BadRequestException,
  ForbiddenException,
  NotFoundException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ErrorCode, Errors } from './app-error';
import { normalizeError } from './normalize-error';

const map = (e: unknown) => normalizeError(e, 'GET', '/projects/x/rest/v1/nope');

describe('normalizeError', () => {
  it('passes AppErrors through', () => {
    const e = Errors.projectNotReady('r', 'COMING_UP');
    expect(map(e)).toBe(e);
  });

  it("turns Nest's unknown-route exception into a route 404 naming the path as sent", () => {
    expect(map(new NotFoundException('Cannot GET /rest/v1/nope'))).toMatchObject({
      status: 404,
      code: ErrorCode.NotFound,
      message: 'No route for GET /projects/x/rest/v1/nope',
    });
  });

  it('keeps the status and message of other HttpExceptions', () => {
    expect(map(new ForbiddenException('nope'))).toMatchObject({
      status: 403,
      code: ErrorCode.Forbidden,
      message: 'nope',
    });
    expect(map(new NotFoundException('No such bucket'))).toMatchObject({
      status: 404,
      message: 'No such bucket',
    });
    expect(map(new BadRequestException(['a must be a string', 'b is required']))).toMatchObject({
      status: 400,
      message: 'a must be a string; b is required',
    });
  });

  it('keeps the 4xx status of Fastify errors', () => {
    const unsupported = Object.assign(new Error('Unsupported Media Type: text/x'), {
      statusCode: 415,
      code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
    });
    expect(map(unsupported)).toMatchObject({
      status: 415,
      message: 'Unsupported Media Type: text/x',
    });
    const tooLarge = Object.assign(new Error('Request body is too large'), { statusCode: 413 });
    expect(map(tooLarge)).toMatchObject({ status: 413, code: ErrorCode.PayloadTooLarge });
  });

  it('renders malformed JSON as a 400', () => {
    const e = Object.assign(new SyntaxError('Unexpected token'), { statusCode: 400 });
    expect(map(e)).toMatchObject({ status: 400, message: 'Request body is not valid JSON' });
  });

  it('hides unknown errors and 5xx exceptions behind a generic 500', () => {
    const cause = new Error('password authentication failed for user "authenticator"');
    const mapped = map(cause);
    expect(mapped).toMatchObject({
      status: 500,
      code: ErrorCode.Internal,
      message: 'Internal server error',
    });
    expect(mapped.cause).toBe(cause);
    expect(map(new ServiceUnavailableException('db host 10.0.0.5 down'))).toMatchObject({
      status: 500,
      message: 'Internal server error',
    });
    expect(map('a string')).toMatchObject({ status: 500 });
    expect(map(undefined)).toMatchObject({ status: 500 });
  });
});
