import { requestHeadersForSql } from './request-headers';

describe('requestHeadersForSql', () => {
  it('keeps lower-cased headers except cookies, joining repeated values', () => {
    expect(
      requestHeadersForSql({
        'x-client-info': 'supabase-js/2',
        cookie: 'sid=1',
        'x-many': ['a', 'b'],
        'x-none': undefined,
      }),
    ).toEqual({ 'x-client-info': 'supabase-js/2', 'x-many': 'a, b' });
  });
});
