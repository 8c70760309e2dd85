import type { IncomingMessage } from 'node:http';
import {
  isProjectServicePath,
  pathRefOf,
  rewriteProjectUrl,
  rewriteRawUrl,
  sentUrlOf,
} from './project-path';

const REF = 'abcdefghij0123456789';

describe('rewriteProjectUrl', () => {
  it.each([
    [`/projects/${REF}/rest/v1/todos?select=*`, '/rest/v1/todos?select=*'],
    [`/projects/${REF}/rest/v1/`, '/rest/v1/'],
    [`/projects/${REF}/auth/v1/token?grant_type=password`, '/auth/v1/token?grant_type=password'],
    [`/projects/${REF}/functions/v1/hello`, '/functions/v1/hello'],
    [`/projects/${REF}`, '/'],
    [`/projects/${REF}?x=1`, '/?x=1'],
  ])('strips the project prefix of %s', (url, rewritten) => {
    expect(rewriteProjectUrl(url)).toEqual({
      url: rewritten,
      pathRef: { ref: REF, source: 'path' },
    });
  });

  it('keeps an invalid ref as written, so resolution can answer 404', () => {
    expect(rewriteProjectUrl('/projects/Not-A-Ref/rest/v1/x')).toEqual({
      url: '/rest/v1/x',
      pathRef: { ref: 'Not-A-Ref', source: 'path' },
    });
  });

  it('reads the ref of functions path form A and leaves the function path', () => {
    expect(rewriteProjectUrl(`/functions/v1/${REF}/hello?x=1`)).toEqual({
      url: '/functions/v1/hello?x=1',
      pathRef: { ref: REF, source: 'functions-path' },
    });
  });

  it.each([
    '/functions/v1/hello',
    `/functions/v1/${REF}`,
    `/functions/v1/${REF}/`,
    '/functions/v1/short/hello',
    '/rest/v1/todos',
    '/health',
    '/projects',
    '/projects/',
    `/projectsX/${REF}/rest/v1/x`,
    `/v1/projects/${REF}`,
  ])('leaves %s alone', (url) => {
    expect(rewriteProjectUrl(url)).toEqual({ url });
  });

  it('strips only the first prefix: a form A path inside /projects/<ref> stays as sent', () => {
    expect(rewriteProjectUrl(`/projects/${REF}/functions/v1/${REF}/x`).url).toBe(
      `/functions/v1/${REF}/x`,
    );
  });
});

describe('rewriteRawUrl', () => {
  it('remembers the ref and the URL as sent on the raw request', () => {
    const req = { url: `/projects/${REF}/rest/v1/x` } as IncomingMessage;
    expect(rewriteRawUrl(req)).toBe('/rest/v1/x');
    expect(pathRefOf(req)).toEqual({ ref: REF, source: 'path' });
    req.url = '/rest/v1/x'; // what Fastify does with the result
    expect(sentUrlOf(req)).toBe(`/projects/${REF}/rest/v1/x`);
  });

  it('remembers nothing without a ref in the path', () => {
    const req = { url: '/rest/v1/x' } as IncomingMessage;
    expect(rewriteRawUrl(req)).toBe('/rest/v1/x');
    expect(pathRefOf(req)).toBeUndefined();
    expect(sentUrlOf(req)).toBe('/rest/v1/x');
  });
});

describe('isProjectServicePath', () => {
  it.each([
    '/rest/v1',
    '/rest/v1/',
    '/rest/v1/todos?select=*',
    '/auth/v1/signup',
    '/storage/v1/object/public/b/a.png',
    '/functions/v1/hello',
    '/auth/signup',
    '/auth/login',
    '/auth/me',
    '/auth/logout',
  ])('%s is project-scoped', (url) => expect(isProjectServicePath(url)).toBe(true));

  it.each([
    '/health',
    '/',
    '/rest',
    '/rest/v2/x',
    '/restx/v1',
    '/rest/v1x',
    '/authx',
    '/docs',
    '//rest/v1/x',
  ])('%s is not', (url) => expect(isProjectServicePath(url)).toBe(false));
});
