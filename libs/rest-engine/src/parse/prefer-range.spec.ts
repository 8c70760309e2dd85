import { catchError } from './catch-error.spec-helper';
import { parsePreferences } from './prefer.parser';
import { parseCount, parseRangeHeader } from './range.parser';

describe('parsePreferences', () => {
  it.each([
    [undefined, { invalid: [] }],
    ['return=representation', { return: 'representation', invalid: [] }],
    ['return=minimal, count=exact', { return: 'minimal', count: 'exact', invalid: [] }],
    [['count=planned', 'tx=rollback'], { count: 'planned', tx: 'rollback', invalid: [] }],
    ['count=exact,return=minimal', { count: 'exact', return: 'minimal', invalid: [] }],
    [
      'resolution=merge-duplicates,missing=default',
      { resolution: 'merge-duplicates', missing: 'default', invalid: [] },
    ],
    [
      'resolution=ignore-duplicates,return=headers-only',
      { resolution: 'ignore-duplicates', return: 'headers-only', invalid: [] },
    ],
    ['handling=strict, max-affected=5', { handling: 'strict', maxAffected: 5, invalid: [] }],
    ['timezone=America/Los_Angeles', { timezone: 'America/Los_Angeles', invalid: [] }],
    [
      'count=estimated,missing=null,tx=commit',
      { count: 'estimated', missing: 'null', tx: 'commit', invalid: [] },
    ],
    // First occurrence wins, across headers too; later duplicates are not invalid.
    [['return=minimal', 'return=representation'], { return: 'minimal', invalid: [] }],
    [
      'foo, count=bogus, params=single-object',
      { invalid: ['foo', 'count=bogus', 'params=single-object'] },
    ],
    ['handling=lenient, foo=bar', { handling: 'lenient', invalid: ['foo=bar'] }],
    ['max-affected=x', { invalid: ['max-affected=x'] }],
    [' , return=minimal ,', { return: 'minimal', invalid: [] }],
  ] as Array<[string | string[] | undefined, object]>)('parses %j', (header, expected) => {
    expect(parsePreferences(header)).toEqual(expected);
  });

  it('refuses invalid preferences under handling=strict with PGRST122', () => {
    const error = catchError(() => parsePreferences(['handling=strict, foo', 'bar=1']));
    expect(error.status).toBe(400);
    expect(error.toJSON()).toEqual({
      code: 'PGRST122',
      message: 'Invalid preferences given with handling=strict',
      details: 'Invalid preferences: foo, bar=1',
      hint: null,
    });
  });
});

describe('parseRangeHeader', () => {
  it.each([
    [undefined, undefined],
    ['0-9', { from: 0, to: 9 }],
    ['10-', { from: 10 }],
    ['5-5', { from: 5, to: 5 }],
    ['items=0-9', undefined],
    ['-5', undefined],
    ['a-b', undefined],
    ['99999999999999999999-', { from: Number.MAX_SAFE_INTEGER }],
  ])('parses %j', (header, expected) => {
    expect(parseRangeHeader(header)).toEqual(expected);
  });

  it('refuses from > to with PGRST103 (416)', () => {
    const error = catchError(() => parseRangeHeader('10-2'));
    expect(error.status).toBe(416);
    expect(error.toJSON()).toEqual({
      code: 'PGRST103',
      message: 'Requested range not satisfiable',
      details:
        'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
      hint: null,
    });
  });
});

describe('parseCount', () => {
  it.each([
    ['limit', '10', 10],
    ['limit', '0', 0],
    ['offset', '30', 30],
    ['limit', 'abc', undefined],
    ['limit', '1.5', undefined],
    ['limit', '', undefined],
    ['offset', '-0', 0],
  ] as const)('%s=%s gives %j', (param, value, expected) => {
    expect(parseCount(param, value)).toBe(expected);
  });

  it.each([
    ['limit', 'Limit should be greater than or equal to zero.'],
    ['offset', 'Offset should be greater than or equal to zero.'],
  ] as const)('refuses a negative %s with PGRST103', (param, details) => {
    const error = catchError(() => parseCount(param, '-1'));
    expect([error.code, error.status, error.details]).toEqual(['PGRST103', 416, details]);
  });
});
