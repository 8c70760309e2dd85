import { decodeQueryString } from './query-string';

describe('decodeQueryString', () => {
  it.each([
    ['', []],
    [
      '?a=1&b=2',
      [
        ['a', '1'],
        ['b', '2'],
      ],
    ],
    ['fts=wfts(english).cat+%26+dog', [['fts', 'wfts(english).cat & dog']]],
    ['x=a%2Bb', [['x', 'a+b']]],
    [
      'tags=cs.%7Ba%7D&tags=ov.%7Bx%7D',
      [
        ['tags', 'cs.{a}'],
        ['tags', 'ov.{x}'],
      ],
    ],
    ['cities.order=name.asc', [['cities.order', 'name.asc']]],
    ['foo&bar=', [['bar', '']]],
    [
      'a=%E2%82%AC&b=%ZZ&c=%FF',
      [
        ['a', '€'],
        ['b', '%ZZ'],
        ['c', '%FF'],
      ],
    ],
    ['a=x=y', [['a', 'x=y']]],
  ])('decodes %j', (raw, pairs) => {
    expect(decodeQueryString(raw)).toEqual(pairs);
  });
});
