import type { OrderTerm } from './ast';
import { catchError } from './catch-error.spec-helper';
import { parseColumnList, parseOrder } from './order.parser';

const field = (name: string) => ({ name, jsonPath: [] });

describe('parseOrder', () => {
  const cases: Array<[string, OrderTerm[]]> = [
    ['id', [{ field: field('id') }]],
    [
      'name.desc,id.asc.nullsfirst',
      [
        { field: field('name'), direction: 'desc' },
        { field: field('id'), direction: 'asc', nulls: 'first' },
      ],
    ],
    [
      'col.desc.nullslast,other',
      [{ field: field('col'), direction: 'desc', nulls: 'last' }, { field: field('other') }],
    ],
    ['col.nullslast', [{ field: field('col'), nulls: 'last' }]],
    [
      'data->>age.desc',
      [{ field: { name: 'data', jsonPath: [{ arrow: '->>', key: 'age' }] }, direction: 'desc' }],
    ],
    [
      'directors(last_name).desc',
      [{ relation: 'directors', field: field('last_name'), direction: 'desc' }],
    ],
    ['"a.b".asc', [{ field: field('a.b'), direction: 'asc' }]],
    ['a, b.desc', [{ field: field('a') }, { field: field('b'), direction: 'desc' }]],
  ];

  it.each(cases)('parses order=%s', (value, terms) => {
    expect(parseOrder(value)).toEqual(terms);
  });

  const errors: Array<[string, number, string]> = [
    ['', 1, 'unexpected end of input expecting field name (* or [a..z0..9_$])'],
    ['id.ascending', 3, 'unexpected "." expecting asc, desc, nullsfirst or nullslast'],
    ['id.desc.nulls', 8, 'unexpected "." expecting asc, desc, nullsfirst or nullslast'],
    ['id,', 4, 'unexpected end of input expecting field name (* or [a..z0..9_$])'],
    ['rel(id', 7, 'unexpected end of input expecting ")"'],
  ];

  it.each(errors)('refuses order=%s with PGRST100', (value, column, details) => {
    expect(catchError(() => parseOrder(value)).toJSON()).toEqual({
      code: 'PGRST100',
      message: `"failed to parse order (${value})" (line 1, column ${column})`,
      details,
      hint: null,
    });
  });
});

describe('parseColumnList', () => {
  it.each([
    ['id', ['id']],
    ['a,b', ['a', 'b']],
    ['a, "b c"', ['a', 'b c']],
  ])('parses %s', (value, names) => {
    expect(parseColumnList(value, 'on_conflict')).toEqual(names);
  });

  it('refuses a trailing comma', () => {
    expect(catchError(() => parseColumnList('a,', 'columns')).message).toBe(
      '"failed to parse columns parameter (a,)" (line 1, column 3)',
    );
  });
});
