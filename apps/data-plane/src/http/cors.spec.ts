import { allowedHeadersFor, CORS_ALLOWED_HEADERS } from './cors';

describe('allowedHeadersFor', () => {
  it('always allows the headers supabase-js sends', () => {
    expect(allowedHeadersFor(undefined)).toEqual([...CORS_ALLOWED_HEADERS]);
    for (const header of [
      'apikey',
      'authorization',
      'x-client-info',
      'x-supabase-api-version',
      'prefer',
    ]) {
      expect(allowedHeadersFor(undefined)).toContain(header);
    }
  });

  it('adds the custom headers a preflight asks for, once, lower-cased', () => {
    expect(allowedHeadersFor('X-My-App, apikey,  x-trace ')).toEqual([
      ...CORS_ALLOWED_HEADERS,
      'x-my-app',
      'x-trace',
    ]);
  });

  it('ignores what is not a header name', () => {
    expect(allowedHeadersFor('x-ok, bad header, "quoted", ,x\r\ny')).toEqual([
      ...CORS_ALLOWED_HEADERS,
      'x-ok',
    ]);
  });
});
