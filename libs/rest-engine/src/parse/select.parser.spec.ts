import type { SelectItem } from './ast';
import { parseSelect } from './select.parser';
import { catchError } from './catch-error.spec-helper';

const col = (name: string, extra: object = {}): SelectItem => ({
  type: 'column',
  field: { name, jsonPath: [] },
  ...extra,
});
const embed = (relation: string, select: SelectItem[], extra: object = {}): SelectItem => ({
  type: 'embed',
  relation,
  spread: false,
  select,
  ...extra,
});

describe('parseSelect', () => {
  const cases: Array<[string, SelectItem[]]> = [
    ['', [{ type: 'star' }]],
    ['*', [{ type: 'star' }]],
    ['id,name', [col('id'), col('name')]],
    ['id, name', [col('id'), col('name')]],
    ['fullName:full_name', [col('full_name', { alias: 'fullName' })]],
    ['id::text', [col('id', { cast: 'text' })]],
    ['n:id::text', [col('id', { alias: 'n', cast: 'text' })]],
    ['"a b","x,y":"c\\"d"', [col('a b'), col('c"d', { alias: 'x,y' })]],
    ['first-name', [col('first-name')]],
    ['données', [col('données')]],
    [
      'data->a->>b',
      [
        {
          type: 'column',
          field: {
            name: 'data',
            jsonPath: [
              { arrow: '->', key: 'a' },
              { arrow: '->>', key: 'b' },
            ],
          },
        },
      ],
    ],
    [
      'data->0->>name,data->-1,data->"0"',
      [
        {
          type: 'column',
          field: {
            name: 'data',
            jsonPath: [
              { arrow: '->', key: 0 },
              { arrow: '->>', key: 'name' },
            ],
          },
        },
        { type: 'column', field: { name: 'data', jsonPath: [{ arrow: '->', key: -1 }] } },
        { type: 'column', field: { name: 'data', jsonPath: [{ arrow: '->', key: '0' }] } },
      ],
    ],
    [
      'age:data->>age::int',
      [
        {
          type: 'column',
          field: { name: 'data', jsonPath: [{ arrow: '->>', key: 'age' }] },
          alias: 'age',
          cast: 'int',
        },
      ],
    ],
    ['cities(*)', [embed('cities', [{ type: 'star' }])]],
    ['cities()', [embed('cities', [])]],
    ['id,cities(id,"Full Name")', [col('id'), embed('cities', [col('id'), col('Full Name')])]],
    [
      'owner:profiles!owner_id(*)',
      [embed('profiles', [{ type: 'star' }], { alias: 'owner', hint: 'owner_id' })],
    ],
    ['cities!inner(name)', [embed('cities', [col('name')], { join: 'inner' })]],
    ['cities!left(name)', [embed('cities', [col('name')], { join: 'left' })]],
    [
      'a:addresses!billing!inner(id)',
      [embed('addresses', [col('id')], { alias: 'a', hint: 'billing', join: 'inner' })],
    ],
    ['addresses!inner!fk(id)', [embed('addresses', [col('id')], { hint: 'fk', join: 'inner' })]],
    [
      '...directors(first_name,last:last_name)',
      [
        embed('directors', [col('first_name'), col('last_name', { alias: 'last' })], {
          spread: true,
        }),
      ],
    ],
    [
      '...rel!fk!inner(*)',
      [embed('rel', [{ type: 'star' }], { spread: true, hint: 'fk', join: 'inner' })],
    ],
    ['a(b(c(d)))', [embed('a', [embed('b', [embed('c', [col('d')])])])]],
    ['count()', [{ type: 'count' }]],
    ['total:count()::int', [{ type: 'count', alias: 'total', cast: 'int' }]],
    ['count', [col('count')]],
    ['amount.sum(),order_date', [col('amount', { aggregate: { fn: 'sum' } }), col('order_date')]],
    [
      'x::numeric.avg()::int',
      [col('x', { cast: 'numeric', aggregate: { fn: 'avg', cast: 'int' } })],
    ],
    ['id.count()', [col('id', { aggregate: { fn: 'count' } })]],
  ];

  it.each(cases)('parses %j', (value, expected) => {
    expect(parseSelect(value)).toEqual(expected);
  });

  const errors: Array<[string, number, string]> = [
    ['id,', 4, 'unexpected end of input expecting "*", "..." or field name (* or [a..z0..9_$])'],
    ['id::text[]', 9, 'unexpected "[" expecting "," or end of input'],
    ['rel(id', 7, 'unexpected end of input expecting "," or ")"'],
    ['"unclosed', 10, 'unexpected end of input expecting "\\"" (closing quote)'],
    [
      'id.nope()',
      4,
      'unexpected "n" expecting aggregate function (sum(), avg(), count(), max(), min())',
    ],
    ['id::', 5, 'unexpected end of input expecting cast type ([a..z0..9_ $])'],
    ['a;drop', 2, 'unexpected ";" expecting "," or end of input'],
    ['data->', 7, 'unexpected end of input expecting JSON key or array index'],
  ];

  it.each(errors)('refuses %j with PGRST100', (value, column, details) => {
    const error = catchError(() => parseSelect(value));
    expect(error.toJSON()).toEqual({
      code: 'PGRST100',
      message: `"failed to parse select parameter (${value})" (line 1, column ${column})`,
      details,
      hint: null,
    });
    expect(error.status).toBe(400);
  });

  it('refuses nesting deeper than the limit with a 400', () => {
    const deep = 'a('.repeat(40) + 'id' + ')'.repeat(40);
    expect(catchError(() => parseSelect(deep)).details).toBe('nesting deeper than 32 levels');
  });
});
