import type { Condition, Operation, ScopedCondition } from './ast';
import { catchError } from './catch-error.spec-helper';
import { parseRequest } from './request.parser';

const filtersOf = (...params: Array<[string, string]>): ScopedCondition[] =>
  parseRequest({ params }).conditions;

const only = (key: string, value: string): Condition => {
  const [scoped] = filtersOf([key, value]);
  return scoped.condition;
};

const op = (key: string, value: string): { negated: boolean; operation: Operation } => {
  const c = only(key, value);
  if (c.type !== 'filter') throw new Error('not a filter');
  return { negated: c.negated, operation: c.operation };
};

describe('horizontal filters', () => {
  const cases: Array<[string, Operation]> = [
    ['eq.1', { op: 'eq', value: '1' }],
    ['eq.', { op: 'eq', value: '' }],
    ['eq.a,b(c).d', { op: 'eq', value: 'a,b(c).d' }],
    ['neq.x', { op: 'neq', value: 'x' }],
    ['gt.2', { op: 'gt', value: '2' }],
    ['gte.2', { op: 'gte', value: '2' }],
    ['lt.2', { op: 'lt', value: '2' }],
    ['lte.2', { op: 'lte', value: '2' }],
    ['like.%ab%', { op: 'like', value: '%ab%' }],
    ['ilike.*x*', { op: 'ilike', value: '*x*' }],
    ['match.^a.*', { op: 'match', value: '^a.*' }],
    ['imatch.^B', { op: 'imatch', value: '^B' }],
    ['like(any).{O*,P*}', { op: 'like', quantifier: 'any', value: '{O*,P*}' }],
    ['ilike(all).{a*,*b}', { op: 'ilike', quantifier: 'all', value: '{a*,*b}' }],
    ['eq(any).{1,2}', { op: 'eq', quantifier: 'any', value: '{1,2}' }],
    ['gt(all).{1,2}', { op: 'gt', quantifier: 'all', value: '{1,2}' }],
    ['gte(any).{1}', { op: 'gte', quantifier: 'any', value: '{1}' }],
    ['lt(any).{1}', { op: 'lt', quantifier: 'any', value: '{1}' }],
    ['lte(all).{1}', { op: 'lte', quantifier: 'all', value: '{1}' }],
    ['match(any).{^a,^b}', { op: 'match', quantifier: 'any', value: '{^a,^b}' }],
    ['imatch(all).{a}', { op: 'imatch', quantifier: 'all', value: '{a}' }],
    ['is.null', { op: 'is', value: 'null' }],
    ['is.NULL', { op: 'is', value: 'null' }],
    ['is.not_null', { op: 'is', value: 'not_null' }],
    ['is.true', { op: 'is', value: 'true' }],
    ['is.False', { op: 'is', value: 'false' }],
    ['is.unknown', { op: 'is', value: 'unknown' }],
    ['isdistinct.v', { op: 'isdistinct', value: 'v' }],
    ['in.(1,2,3)', { op: 'in', values: ['1', '2', '3'] }],
    ['in.()', { op: 'in', values: [] }],
    ['in.( 1,2 )', { op: 'in', values: ['1', '2 '] }],
    ['in.("a,b","c(d)",plain)', { op: 'in', values: ['a,b', 'c(d)', 'plain'] }],
    ['in.("Hebdon,John","Williams,Mary")', { op: 'in', values: ['Hebdon,John', 'Williams,Mary'] }],
    ['in.("Quote:\\"","Backslash:\\\\")', { op: 'in', values: ['Quote:"', 'Backslash:\\'] }],
    ['in.(with "q")', { op: 'in', values: ['with "q"'] }],
    ['in.("a"b,c)', { op: 'in', values: ['"a"b', 'c'] }],
    ['in.(a,)', { op: 'in', values: ['a', ''] }],
    ['cs.{a,b}', { op: 'cs', value: '{a,b}' }],
    ['cs.{"k":"v"}', { op: 'cs', value: '{"k":"v"}' }],
    ['cs.[1,5)', { op: 'cs', value: '[1,5)' }],
    ['cd.{a}', { op: 'cd', value: '{a}' }],
    ['ov.{x,y}', { op: 'ov', value: '{x,y}' }],
    ['sl.(1,10)', { op: 'sl', value: '(1,10)' }],
    ['sr.(1,10)', { op: 'sr', value: '(1,10)' }],
    ['nxl.[1,5)', { op: 'nxl', value: '[1,5)' }],
    ['nxr.[1,5)', { op: 'nxr', value: '[1,5)' }],
    ['adj.[1,5)', { op: 'adj', value: '[1,5)' }],
    ['fts.cat', { op: 'fts', value: 'cat' }],
    ['plfts(english).fat cats', { op: 'plfts', config: 'english', value: 'fat cats' }],
    ['phfts.a b', { op: 'phfts', value: 'a b' }],
    ['wfts(english).cat & dog', { op: 'wfts', config: 'english', value: 'cat & dog' }],
  ];

  it.each(cases)('parses col=%s', (value, operation) => {
    expect(op('col', value)).toEqual({ negated: false, operation });
  });

  it.each([
    ['not.in.(1,2)', { op: 'in', values: ['1', '2'] }],
    ['not.is.null', { op: 'is', value: 'null' }],
    ['not.eq.5', { op: 'eq', value: '5' }],
    ['not.like(any).{a*}', { op: 'like', quantifier: 'any', value: '{a*}' }],
    ['not.fts(english).x', { op: 'fts', config: 'english', value: 'x' }],
  ] as Array<[string, Operation]>)('parses the negation col=%s', (value, operation) => {
    expect(op('col', value)).toEqual({ negated: true, operation });
  });

  it('keeps a JSON path and an embed path on the filtered column', () => {
    expect(filtersOf(['rel1.rel2.data->a->>b', 'eq.x'], ['data->0', 'gt.20'])).toEqual([
      {
        path: ['rel1', 'rel2'],
        condition: {
          type: 'filter',
          field: {
            name: 'data',
            jsonPath: [
              { arrow: '->', key: 'a' },
              { arrow: '->>', key: 'b' },
            ],
          },
          negated: false,
          operation: { op: 'eq', value: 'x' },
        },
      },
      {
        path: [],
        condition: {
          type: 'filter',
          field: { name: 'data', jsonPath: [{ arrow: '->', key: 0 }] },
          negated: false,
          operation: { op: 'gt', value: '20' },
        },
      },
    ]);
  });

  it('keeps repeated keys, in order, to be AND-ed', () => {
    const conditions = filtersOf(['tags', 'cs.{a}'], ['tags', 'ov.{x}'], ['cities.name', 'eq.x']);
    expect(
      conditions.map((c) => [c.path, c.condition.type === 'filter' && c.condition.operation]),
    ).toEqual([
      [[], { op: 'cs', value: '{a}' }],
      [[], { op: 'ov', value: '{x}' }],
      [['cities'], { op: 'eq', value: 'x' }],
    ]);
  });

  it('reads a quoted dotted field name as one name', () => {
    expect(filtersOf(['"information.cpe"', 'like.*MS*'])[0]).toEqual({
      path: [],
      condition: {
        type: 'filter',
        field: { name: 'information.cpe', jsonPath: [] },
        negated: false,
        operation: { op: 'like', value: '*MS*' },
      },
    });
  });

  it('treats `rel=is.null` as a filter on the name (the plan stage knows it is an embed)', () => {
    expect(op('rel', 'not.is.null')).toEqual({
      negated: true,
      operation: { op: 'is', value: 'null' },
    });
  });

  const errors: Array<[string, string, string, string]> = [
    [
      'col',
      'noop.0',
      '"failed to parse filter (noop.0)" (line 1, column 1)',
      'unexpected "n" expecting "not" or operator (eq, gt, ...)',
    ],
    [
      'col',
      '',
      '"failed to parse filter ()" (line 1, column 1)',
      'unexpected end of input expecting "not" or operator (eq, gt, ...)',
    ],
    [
      'col',
      'eq1',
      '"failed to parse filter (eq1)" (line 1, column 3)',
      'unexpected "1" expecting "."',
    ],
    [
      'col',
      'is.maybe',
      '"failed to parse filter (is.maybe)" (line 1, column 4)',
      'unexpected "m" expecting null or trilean value (unknown, true, false) or not_null',
    ],
    [
      'col',
      'neq(any).1',
      '"failed to parse filter (neq(any).1)" (line 1, column 4)',
      'unexpected "(" expecting "."',
    ],
    [
      'col',
      'eq(some).1',
      '"failed to parse filter (eq(some).1)" (line 1, column 3)',
      'unexpected "(" expecting "(any)" or "(all)"',
    ],
    [
      'col',
      'in.1,2',
      '"failed to parse filter (in.1,2)" (line 1, column 4)',
      'unexpected "1" expecting "("',
    ],
    [
      'col',
      'in.(1,2',
      '"failed to parse filter (in.(1,2)" (line 1, column 8)',
      'unexpected end of input expecting "," or ")"',
    ],
    [
      'col',
      'fts().x',
      '"failed to parse filter (fts().x)" (line 1, column 5)',
      'unexpected ")" expecting text search configuration ([a..z0..9_])',
    ],
    [
      'col',
      'EQ.1',
      '"failed to parse filter (EQ.1)" (line 1, column 1)',
      'unexpected "E" expecting "not" or operator (eq, gt, ...)',
    ],
    [
      'col::text',
      'eq.1',
      '"failed to parse tree path (col::text)" (line 1, column 4)',
      'unexpected ":" expecting "." , "->" or end of input',
    ],
    [
      'a..b',
      'eq.1',
      '"failed to parse tree path (a..b)" (line 1, column 3)',
      'unexpected "." expecting field name (* or [a..z0..9_$])',
    ],
  ];

  it.each(errors)('refuses %s=%s with PGRST100', (key, value, message, details) => {
    const error = catchError(() => filtersOf([key, value]));
    expect(error.toJSON()).toEqual({ code: 'PGRST100', message, details, hint: null });
    expect(error.status).toBe(400);
  });
});
