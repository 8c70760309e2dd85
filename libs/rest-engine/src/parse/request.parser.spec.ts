import type { ParsedRequest } from './ast';
import { catchError } from './catch-error.spec-helper';
import { decodeQueryString } from './query-string';
import { parseRequest } from './request.parser';

const fromUrl = (query: string, extra: Partial<Parameters<typeof parseRequest>[0]> = {}) =>
  parseRequest({ params: decodeQueryString(query), ...extra });

const empty: ParsedRequest = {
  select: [{ type: 'star' }],
  conditions: [],
  order: [],
  ranges: [],
  preferences: { invalid: [] },
  rpcArguments: [],
};

describe('parseRequest', () => {
  it('defaults to select=* with nothing else', () => {
    expect(fromUrl('')).toEqual(empty);
  });

  it('parses what supabase-js sends for a filtered, ordered, paged read', () => {
    // from('countries').select('id, name, cities ( id )').in('id',[1,2]).order('name',{ascending:false}).range(0,9)
    const query =
      'select=id%2Cname%2Ccities%28id%29&id=in.%281%2C2%29&order=name.desc&offset=0&limit=10';
    expect(fromUrl(query)).toEqual({
      ...empty,
      select: [
        { type: 'column', field: { name: 'id', jsonPath: [] } },
        { type: 'column', field: { name: 'name', jsonPath: [] } },
        {
          type: 'embed',
          relation: 'cities',
          spread: false,
          select: [{ type: 'column', field: { name: 'id', jsonPath: [] } }],
        },
      ],
      conditions: [
        {
          path: [],
          condition: {
            type: 'filter',
            field: { name: 'id', jsonPath: [] },
            negated: false,
            operation: { op: 'in', values: ['1', '2'] },
          },
        },
      ],
      order: [{ path: [], terms: [{ field: { name: 'name', jsonPath: [] }, direction: 'desc' }] }],
      ranges: [{ path: [], offset: 0, limit: 10 }],
    });
  });

  it.each([
    ['tags=cs.%7Ba%2Cb%7D', { op: 'cs', value: '{a,b}' }],
    ['fts=wfts%28english%29.cat+%26+dog', { op: 'wfts', config: 'english', value: 'cat & dog' }],
    ['name=ilike.*x*', { op: 'ilike', value: '*x*' }],
    ['name=like%28all%29.%7BO*%2CP*%7D', { op: 'like', quantifier: 'all', value: '{O*,P*}' }],
    ['id=not.in.%281%2C2%29', { op: 'in', values: ['1', '2'] }],
  ])('decodes and parses the supabase-js filter %s', (query, operation) => {
    const [scoped] = fromUrl(query).conditions;
    expect(scoped.condition).toMatchObject({ type: 'filter', operation });
  });

  it('parses .or() and referenced-table modifiers', () => {
    const query =
      'or=%28id.eq.1%2Cname.ilike.*x*%29&cities.or=%28id.eq.1%29&cities.not.and=%28a.eq.1%29' +
      '&cities.order=name.asc.nullslast&cities.limit=2&cities.offset=4&a.b.limit=1';
    const parsed = fromUrl(query);
    expect(parsed.conditions.map((c) => [c.path, c.condition.type, c.condition])).toEqual([
      [[], 'logic', expect.objectContaining({ operator: 'or', negated: false })],
      [['cities'], 'logic', expect.objectContaining({ operator: 'or', negated: false })],
      [['cities'], 'logic', expect.objectContaining({ operator: 'and', negated: true })],
    ]);
    expect(parsed.order).toEqual([
      {
        path: ['cities'],
        terms: [{ field: { name: 'name', jsonPath: [] }, direction: 'asc', nulls: 'last' }],
      },
    ]);
    expect(parsed.ranges).toEqual([
      { path: ['cities'], limit: 2, offset: 4 },
      { path: ['a', 'b'], limit: 1 },
    ]);
  });

  it('parses not.or at the top level', () => {
    expect(fromUrl('not.or=(a.eq.1,b.eq.2)').conditions[0].condition).toMatchObject({
      type: 'logic',
      operator: 'or',
      negated: true,
    });
  });

  it('lets the last order/limit win and the first select win', () => {
    const parsed = fromUrl('order=a&order=b&limit=1&limit=2&select=id&select=name&limit=x');
    expect(parsed.order).toEqual([{ path: [], terms: [{ field: { name: 'b', jsonPath: [] } }] }]);
    expect(parsed.ranges).toEqual([{ path: [], limit: 2 }]);
    expect(parsed.select).toEqual([{ type: 'column', field: { name: 'id', jsonPath: [] } }]);
  });

  it('parses on_conflict and columns', () => {
    const parsed = fromUrl('on_conflict=id,email&columns=a,b');
    expect([parsed.onConflict, parsed.columns]).toEqual([
      ['id', 'email'],
      ['a', 'b'],
    ]);
  });

  it('treats rel.select as a filter key (only exact reserved names are reserved)', () => {
    expect(fromUrl('rel.select=eq.1').conditions[0]).toMatchObject({
      path: ['rel'],
      condition: { field: { name: 'select' } },
    });
  });

  it('honours Range only for GET and reads Prefer', () => {
    const headers = { range: '0-9', prefer: 'count=exact' };
    expect(fromUrl('', { headers }).range).toEqual({ from: 0, to: 9 });
    expect(fromUrl('', { headers, method: 'head' }).range).toBeUndefined();
    expect(fromUrl('', { headers, method: 'POST' }).preferences.count).toBe('exact');
  });

  it('turns non-filter params into function arguments on GET RPC', () => {
    const parsed = fromUrl('a=1&b=eq.2&c=', { rpc: true });
    expect(parsed.rpcArguments).toEqual([
      ['a', '1'],
      ['c', ''],
    ]);
    expect(parsed.conditions).toHaveLength(1);
  });

  it.each([
    ['foo=', 'PGRST100', 400, '"failed to parse filter ()" (line 1, column 1)'],
    ['order=id.', 'PGRST100', 400, '"failed to parse order (id.)" (line 1, column 3)'],
    ['or=()', 'PGRST100', 400, '"failed to parse logic tree (())" (line 1, column 4)'],
    ['select=a(', 'PGRST100', 400, '"failed to parse select parameter (a()" (line 1, column 3)'],
    ['a..order=id', 'PGRST100', 400, '"failed to parse tree path (a..order)" (line 1, column 3)'],
    ['limit=-1', 'PGRST103', 416, 'Requested range not satisfiable'],
  ])('refuses %s', (query, code, status, message) => {
    const error = catchError(() => fromUrl(query));
    expect([error.code, error.status, error.message]).toEqual([code, status, message]);
  });

  it('refuses a Range header with from > to and strict invalid preferences', () => {
    expect(catchError(() => fromUrl('', { headers: { range: '9-0' } })).code).toBe('PGRST103');
    const prefer = 'handling=strict,nope';
    expect(catchError(() => fromUrl('', { headers: { prefer } })).code).toBe('PGRST122');
  });
});
