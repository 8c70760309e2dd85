import { ArgumentsHost, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { PinoLogger } from 'nestjs-pino';
import { Errors } from '@baseplate/errors';
import { DataPlaneExceptionFilter } from './exception.filter';

function harness(url = '/rest/v1/x') {
  const sent: { body?: unknown; status?: number; headers: Record<string, string> } = {
    headers: {},
  };
  const reply = {
    header: (name: string, value: string) => ((sent.headers[name] = value), reply),
  };
  const adapter = {
    isHeadersSent: () => false,
    reply: (_res: unknown, body: unknown, status: number) => Object.assign(sent, { body, status }),
  };
  const logged: unknown[][] = [];
  const logger = { error: (...args: unknown[]) => logged.push(args) } as unknown as PinoLogger;
  const request = { raw: { method: 'GET', url } as IncomingMessage };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }),
  } as unknown as ArgumentsHost;
  const filter = new DataPlaneExceptionFilter(
    { httpAdapter: adapter } as unknown as HttpAdapterHost,
    logger,
  );
  return { filter, host, sent, logged };
}

describe('DataPlaneExceptionFilter', () => {
  it('adds the string statusCode storage-js reads under /storage/v1', () => {
    const { filter, host, sent } = harness('/storage/v1/object/b/x');
    filter.catch(Errors.projectNotFound('abc'), host);
    expect(sent.body).toMatchObject({
      statusCode: '404',
      error: 'Not Found',
      code: 'project_not_found',
    });
  });

  it('renders AppErrors as {error, code, message} JSON without logging them', () => {
    const { filter, host, sent, logged } = harness('/functions/v1/x');
    filter.catch(Errors.projectNotFound('abc'), host);
    expect(sent.status).toBe(404);
    expect(sent.body).toEqual({
      error: 'Not Found',
      code: 'project_not_found',
      message: 'Project abc not found',
    });
    expect(sent.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(logged).toHaveLength(0);
  });

  it('adds PostgREST details and hint keys under /rest/v1', () => {
    const { filter, host, sent } = harness('/rest/v1/films');
    filter.catch(Errors.projectNotFound('abc'), host);
    expect(sent.body).toEqual({
      error: 'Not Found',
      code: 'project_not_found',
      message: 'Project abc not found',
      details: null,
      hint: null,
    });
  });

  it("adds GoTrue's keys and API version header under /auth", () => {
    const { filter, host, sent } = harness('/auth/v1/token?grant_type=password');
    filter.catch(Errors.projectNotFound('abc'), host);
    expect(sent.body).toEqual({
      error: 'Not Found',
      code: 'project_not_found',
      error_code: 'project_not_found',
      message: 'Project abc not found',
      msg: 'Project abc not found',
    });
    expect(sent.headers['x-supabase-api-version']).toBe('2024-01-01');
  });

  it('renders an unknown route as a 404', () => {
    const { filter, host, sent } = harness('/nope');
    filter.catch(new NotFoundException('Cannot GET /nope'), host);
    expect(sent).toMatchObject({
      status: 404,
      body: { error: 'Not Found', code: 'not_found', message: 'No route for GET /nope' },
    });
  });

  it('logs the cause of an unknown error and renders nothing of it', () => {
    const { filter, host, sent, logged } = harness();
    const cause = new Error('connect ECONNREFUSED 10.1.2.3:5432');
    filter.catch(cause, host);
    expect(sent).toMatchObject({
      status: 500,
      body: { error: 'Internal Server Error', code: 'internal_error' },
    });
    expect(JSON.stringify(sent.body)).not.toContain('10.1.2.3');
    expect(logged).toHaveLength(1);
    expect(logged[0]![0]).toMatchObject({ err: cause, method: 'GET', path: '/rest/v1/x' });
  });
});
