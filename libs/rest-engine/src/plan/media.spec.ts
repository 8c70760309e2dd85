import { catchError } from '../parse/catch-error.spec-helper';
import { negotiateMedia, parseAccept } from './media';

const JSON_TYPE = 'application/json; charset=utf-8';
const OBJECT_TYPE = 'application/vnd.pgrst.object+json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8';
const OPENAPI_TYPE = 'application/openapi+json; charset=utf-8';

describe('parseAccept', () => {
  it('reads a missing or blank header as */*', () => {
    expect(parseAccept(undefined)).toEqual([{ type: '*/*', params: {}, q: 1 }]);
    expect(parseAccept('  ')).toEqual([{ type: '*/*', params: {}, q: 1 }]);
  });

  it('orders offers by q, keeps the written order on ties and drops q=0', () => {
    const offers = parseAccept('text/csv;q=0.5, Application/JSON, text/html;q=0, */*;q=0.5');
    expect(offers.map((o) => [o.type, o.q])).toEqual([
      ['application/json', 1],
      ['text/csv', 0.5],
      ['*/*', 0.5],
    ]);
  });

  it('keeps media type parameters, unquoted and with lower-case names', () => {
    const [offer] = parseAccept('application/vnd.pgrst.object+json; Nulls="stripped"');
    expect(offer).toEqual({
      type: 'application/vnd.pgrst.object+json',
      params: { nulls: 'stripped' },
      q: 1,
    });
  });
});

describe('negotiateMedia', () => {
  it.each([
    [undefined, 'json', JSON_TYPE, false],
    ['', 'json', JSON_TYPE, false],
    ['*/*', 'json', JSON_TYPE, false],
    ['application/json', 'json', JSON_TYPE, false],
    ['application/json; charset=utf-8', 'json', JSON_TYPE, false],
    ['APPLICATION/JSON', 'json', JSON_TYPE, false],
    ['application/vnd.pgrst.object+json', 'object', OBJECT_TYPE, false],
    ['application/vnd.pgrst.object', 'object', OBJECT_TYPE, false],
    ['application/vnd.pgrst.object+json;nulls=stripped', 'object', OBJECT_TYPE, true],
    ['application/vnd.pgrst.array+json', 'json', JSON_TYPE, false],
    ['application/vnd.pgrst.array+json;nulls=stripped', 'json', JSON_TYPE, true],
    ['text/csv', 'csv', CSV_TYPE, false],
    ['text/html, application/json', 'json', JSON_TYPE, false],
    ['text/html, text/csv, application/json', 'csv', CSV_TYPE, false],
    ['text/csv;q=0.5, application/json', 'json', JSON_TYPE, false],
    ['application/json;q=0.2, text/csv;q=0.9', 'csv', CSV_TYPE, false],
    ['text/html;q=0.9, */*;q=0.1', 'json', JSON_TYPE, false],
    ['application/vnd.pgrst.object+json;q=0.1, application/json', 'json', JSON_TYPE, false],
  ])(
    'Accept %s on a table gives %s (%s), nulls stripped: %s',
    (accept, type, contentType, strip) => {
      expect(negotiateMedia(accept)).toEqual({ type, contentType, stripNulls: strip });
    },
  );

  it.each([
    [undefined, 'openapi'],
    ['*/*', 'openapi'],
    ['application/json', 'openapi'],
    ['application/openapi+json', 'openapi'],
    ['text/html, application/openapi+json', 'openapi'],
  ])('Accept %s at the root gives the OpenAPI document', (accept, type) => {
    expect(negotiateMedia(accept, true)).toEqual({
      type,
      contentType: OPENAPI_TYPE,
      stripNulls: false,
    });
  });

  it.each([
    ['text/html', false, 'text/html'],
    ['text/html, image/png', false, 'text/html, image/png'],
    ['application/openapi+json', false, 'application/openapi+json'],
    ['text/csv', true, 'text/csv'],
    ['application/vnd.pgrst.object+json', true, 'application/vnd.pgrst.object+json'],
    ['application/xml, text/plain', false, 'application/xml, text/plain'],
  ])('answers %s (root: %s) with PGRST107 406 listing what was asked', (accept, root, list) => {
    const error = catchError(() => negotiateMedia(accept, root));
    expect(error).toMatchObject({ code: 'PGRST107', status: 406, details: null, hint: null });
    expect(error.message).toBe(`None of these media types are available: ${list}`);
  });
});

describe('negotiateMedia, as PostgREST ranks offers', () => {
  it('prefers the more specific type on a q tie', () => {
    expect(negotiateMedia('*/*, text/csv').type).toBe('csv');
    expect(negotiateMedia('*/*;q=0.9, text/csv;q=0.9').type).toBe('csv');
    expect(negotiateMedia('*/*, text/csv;q=0.5').type).toBe('json');
  });

  it('refuses type wildcards other than */*, naming the types only', () => {
    for (const accept of ['text/*', 'application/*']) {
      expect(catchError(() => negotiateMedia(accept))).toMatchObject({
        code: 'PGRST107',
        status: 406,
      });
    }
    expect(
      catchError(() => negotiateMedia('text/html;q=0.5, foo/bar;charset=utf-8')),
    ).toMatchObject({
      message: 'None of these media types are available: foo/bar, text/html',
    });
  });
});
