import { catchError } from '../parse/catch-error.spec-helper';
import { mimeOf, parseRpcPayload, parseTablePayload } from './payload';

const json = (text?: string) => ({
  contentType: 'application/json',
  ...(text === undefined ? {} : { text }),
});

describe('mimeOf', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['Application/JSON; charset=utf-8', 'application/json'],
    ['text/csv;header=present', 'text/csv'],
    [' application/x-www-form-urlencoded ', 'application/x-www-form-urlencoded'],
  ])('reads Content-Type %j as %s', (contentType, mime) => {
    expect(mimeOf(contentType)).toBe(mime);
  });
});

describe('parseTablePayload', () => {
  it('reads a JSON object as one row, its text wrapped in an array', () => {
    expect(parseTablePayload(json('{"title":"a","year":1}'))).toEqual({
      rows: [{ title: 'a', year: 1 }],
      isArray: false,
      json: '[{"title":"a","year":1}]',
      objectText: '{"title":"a","year":1}',
    });
  });

  it('binds a JSON array of objects exactly as sent', () => {
    const text = '[ {"title":"a"}, {"title":"b"} ]';
    expect(parseTablePayload(json(text))).toEqual({
      rows: [{ title: 'a' }, { title: 'b' }],
      isArray: true,
      json: text,
    });
  });

  it('treats a body without Content-Type as JSON', () => {
    expect(parseTablePayload({ text: '{"a":1}' }).rows).toEqual([{ a: 1 }]);
  });

  it.each(['[]', '5', '"text"', 'true', 'null'])(
    'reads the JSON %s as no row, as PostgREST does',
    (text) => {
      expect(parseTablePayload(json(text))).toMatchObject({ rows: [], json: expect.any(String) });
      expect(JSON.parse(parseTablePayload(json(text)).json)).toEqual([]);
    },
  );

  it.each([undefined, '', '   ', '{', '{"a":}', "{'a':1}", 'nul'])(
    'refuses the body %j with PGRST102 Empty or invalid json',
    (text) => {
      expect(catchError(() => parseTablePayload(json(text)))).toMatchObject({
        code: 'PGRST102',
        status: 400,
        message: 'Empty or invalid json',
      });
    },
  );

  it('reads CSV: header row as keys, quotes and doubled quotes, NULL as null, empty as ""', () => {
    const text = 'title,summary,year\n"Smith, J","say ""hi""",NULL\nplain,,1999\n';
    const payload = parseTablePayload({ contentType: 'text/csv', text });
    expect(payload.rows).toEqual([
      { title: 'Smith, J', summary: 'say "hi"', year: null },
      { title: 'plain', summary: '', year: '1999' },
    ]);
    expect(payload.isArray).toBe(true);
    expect(JSON.parse(payload.json)).toEqual(payload.rows);
  });

  it.each([
    ['title\n', []],
    ['', []],
  ])('reads the CSV %j as no row', (text, rows) => {
    expect(parseTablePayload({ contentType: 'text/csv', text }).rows).toEqual(rows);
  });

  it('refuses CSV lines of unequal length with PGRST102', () => {
    const error = catchError(() =>
      parseTablePayload({ contentType: 'text/csv', text: 'a,b\n1\n' }),
    );
    expect(error).toMatchObject({
      code: 'PGRST102',
      status: 400,
      message: 'All lines must have same number of fields',
    });
  });

  it('reads a form body as one row of strings', () => {
    const payload = parseTablePayload({
      contentType: 'application/x-www-form-urlencoded',
      text: 'title=a+b&year=1&note=%26%3D',
    });
    expect(payload).toEqual({
      rows: [{ title: 'a b', year: '1', note: '&=' }],
      isArray: false,
      json: '[{"title":"a b","year":"1","note":"&="}]',
    });
  });

  it.each(['application/xml', 'text/plain', 'multipart/form-data; boundary=x'])(
    'refuses the Content-Type %s with PGRST102',
    (contentType) => {
      const error = catchError(() => parseTablePayload({ contentType, text: 'x' }));
      expect(error).toMatchObject({
        code: 'PGRST102',
        status: 400,
        message: `Content-Type not acceptable: ${mimeOf(contentType)}`,
      });
    },
  );
});

describe('parseRpcPayload', () => {
  it('passes a JSON object through as the raw text', () => {
    const text = '{ "a": 1, "b": [2] }';
    expect(parseRpcPayload(json(text))).toEqual({ args: { a: 1, b: [2] }, json: text });
  });

  it.each([undefined, '', '  '])('reads the empty body %j as no argument', (text) => {
    expect(parseRpcPayload(json(text))).toEqual({ args: {}, json: '{}' });
  });

  it.each(['{', '[1,', '{"a" 1}'])('refuses the invalid JSON %s with PGRST102', (text) => {
    expect(catchError(() => parseRpcPayload(json(text)))).toMatchObject({
      code: 'PGRST102',
      status: 400,
      message: 'Empty or invalid json',
    });
  });

  it('reads form fields as string arguments', () => {
    expect(
      parseRpcPayload({ contentType: 'application/x-www-form-urlencoded', text: 'a=1&b=x+y' }),
    ).toEqual({ args: { a: '1', b: 'x y' }, json: '{"a":"1","b":"x y"}' });
  });

  it.each(['text/plain', 'text/xml', 'application/octet-stream'])(
    'hands a %s body over raw',
    (contentType) => {
      expect(
        parseRpcPayload({ contentType: `${contentType}; charset=utf-8`, text: '<x/>' }),
      ).toEqual({
        raw: '<x/>',
        mime: contentType,
      });
    },
  );

  it('refuses other Content-Types with PGRST102', () => {
    expect(
      catchError(() => parseRpcPayload({ contentType: 'image/png', text: 'x' })),
    ).toMatchObject({
      code: 'PGRST102',
      message: 'Content-Type not acceptable: image/png',
    });
  });
});

describe('number precision', () => {
  it('passes object and array bodies to PostgreSQL as sent, digits intact', () => {
    const big = '{"id":9007199254740993,"rating":0.10000000000000000555}';
    expect(parseTablePayload(json(big)).json).toBe(`[${big}]`);
    expect(parseTablePayload(json(`[${big}]`)).json).toBe(`[${big}]`);
  });
});
