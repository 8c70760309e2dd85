import type { Condition, FilterCondition, LogicTree, Operation } from './ast';
import { catchError } from './catch-error.spec-helper';
import { parseLogicParam } from './logic.parser';

const f = (name: string, operation: Operation, negated = false): FilterCondition => ({
  type: 'filter',
  field: { name, jsonPath: [] },
  negated,
  operation,
});
const tree = (operator: 'and' | 'or', conditions: Condition[], negated = false): LogicTree => ({
  type: 'logic',
  operator,
  negated,
  conditions,
});

describe('parseLogicParam', () => {
  const cases: Array<['and' | 'or', boolean, string, LogicTree]> = [
    [
      'or',
      false,
      '(age.lt.18,age.gt.21)',
      tree('or', [f('age', { op: 'lt', value: '18' }), f('age', { op: 'gt', value: '21' })]),
    ],
    [
      'and',
      true,
      '(a.gte.0,a.lte.100)',
      tree('and', [f('a', { op: 'gte', value: '0' }), f('a', { op: 'lte', value: '100' })], true),
    ],
    [
      'or',
      false,
      '(age.eq.14,not.and(age.gte.11,age.lte.17))',
      tree('or', [
        f('age', { op: 'eq', value: '14' }),
        tree(
          'and',
          [f('age', { op: 'gte', value: '11' }), f('age', { op: 'lte', value: '17' })],
          true,
        ),
      ]),
    ],
    [
      'or',
      false,
      '(id.in.(1,2),id.in.(3,4))',
      tree('or', [
        f('id', { op: 'in', values: ['1', '2'] }),
        f('id', { op: 'in', values: ['3', '4'] }),
      ]),
    ],
    [
      'or',
      false,
      '(arr.cs.{1,2,3},arr.cd.{1})',
      tree('or', [f('arr', { op: 'cs', value: '{1,2,3}' }), f('arr', { op: 'cd', value: '{1}' })]),
    ],
    [
      'and',
      false,
      '( and ( id.in.( 1, 2, 3 ) , id.eq.3 ) , or ( id.eq.2 , id.eq.3 ) )',
      tree('and', [
        tree('and', [
          f('id', { op: 'in', values: ['1', ' 2', ' 3 '] }),
          f('id', { op: 'eq', value: '3 ' }),
        ]),
        tree('or', [f('id', { op: 'eq', value: '2 ' }), f('id', { op: 'eq', value: '3 ' })]),
      ]),
    ],
    [
      'or',
      false,
      '(tsv.plfts(german).Art Spass,tsv.fts.x)',
      tree('or', [
        f('tsv', { op: 'plfts', config: 'german', value: 'Art Spass' }),
        f('tsv', { op: 'fts', value: 'x' }),
      ]),
    ],
    [
      'or',
      false,
      '(range.adj."[18,21)",range.cs."[30,35]")',
      tree('or', [
        f('range', { op: 'adj', value: '[18,21)' }),
        f('range', { op: 'cs', value: '[30,35]' }),
      ]),
    ],
    [
      'or',
      false,
      '(id.eq.1,name.ilike.*x*)',
      tree('or', [f('id', { op: 'eq', value: '1' }), f('name', { op: 'ilike', value: '*x*' })]),
    ],
    [
      'or',
      false,
      '(name.eq."a,b",name.eq."x\\"y")',
      tree('or', [f('name', { op: 'eq', value: 'a,b' }), f('name', { op: 'eq', value: 'x"y' })]),
    ],
    [
      'or',
      false,
      '(rel.is.null,other.not.is.null)',
      tree('or', [
        f('rel', { op: 'is', value: 'null' }),
        f('other', { op: 'is', value: 'null' }, true),
      ]),
    ],
    [
      'or',
      false,
      '(a.like(any).{x*,y*},b.not.eq.2)',
      tree('or', [
        f('a', { op: 'like', quantifier: 'any', value: '{x*,y*}' }),
        f('b', { op: 'eq', value: '2' }, true),
      ]),
    ],
    [
      'and',
      false,
      '(id.eq.1,id.neq.2))',
      tree('and', [f('id', { op: 'eq', value: '1' }), f('id', { op: 'neq', value: '2' })]),
    ],
    [
      'or',
      false,
      '(or.eq.1,and.eq.2)',
      tree('or', [f('or', { op: 'eq', value: '1' }), f('and', { op: 'eq', value: '2' })]),
    ],
    ['or', false, '(a.eq.)', tree('or', [f('a', { op: 'eq', value: '' })])],
  ];

  it.each(cases)('parses %s=%s', (operator, negated, value, expected) => {
    expect(parseLogicParam(operator, negated, value)).toEqual(expected);
  });

  it('reads JSON paths on tree fields', () => {
    expect(parseLogicParam('or', false, '(data->>k.eq.x)').conditions[0]).toEqual({
      type: 'filter',
      field: { name: 'data', jsonPath: [{ arrow: '->>', key: 'k' }] },
      negated: false,
      operation: { op: 'eq', value: 'x' },
    });
  });

  const errors: Array<[string, number, string]> = [
    [
      '()',
      4,
      'unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)',
    ],
    ['', 3, 'unexpected end of input expecting "("'],
    ['(a.eq.1', 10, 'unexpected end of input expecting "," or ")"'],
    ['(a.bad.1)', 6, 'unexpected "b" expecting "not" or operator (eq, gt, ...)'],
    ['(a)', 5, 'unexpected ")" expecting "."'],
  ];

  it.each(errors)('refuses or=%s with PGRST100', (value, column, details) => {
    expect(catchError(() => parseLogicParam('or', false, value)).toJSON()).toEqual({
      code: 'PGRST100',
      message: `"failed to parse logic tree (${value})" (line 1, column ${column})`,
      details,
      hint: null,
    });
  });

  it('refuses trees nested deeper than the limit', () => {
    const deep = '(' + 'or('.repeat(40) + 'a.eq.1' + ')'.repeat(41);
    expect(catchError(() => parseLogicParam('or', false, deep)).details).toBe(
      'nesting deeper than 32 levels',
    );
  });
});
