import { encodePayload, outcomeOf, parseRunnerMessage } from './protocol';

describe('parseRunnerMessage (messages from a worker are untrusted)', () => {
  const parse = (m: unknown) => parseRunnerMessage(m, 100);

  it.each([
    [{ t: 'ready' }, { t: 'ready' }],
    [{ t: 'loaded', extra: 1 }, { t: 'loaded' }],
    [
      { t: 'loadErr', message: 'SyntaxError: x' },
      { t: 'loadErr', message: 'SyntaxError: x' },
    ],
    [
      { t: 'uncaught', message: 'boom' },
      { t: 'uncaught', message: 'boom' },
    ],
    [
      { t: 'log', id: 3, level: 'warn', message: 'hi', at: 1.6 },
      { t: 'log', id: 3, line: { level: 'warn', message: 'hi', at: 2 } },
    ],
    [
      { t: 'res', id: 1, ok: true, json: '{"a":1}' },
      { t: 'res', id: 1, result: { ok: true, json: '{"a":1}' } },
    ],
    [
      { t: 'res', id: 1, ok: true },
      { t: 'res', id: 1, result: { ok: true, json: undefined } },
    ],
    [
      { t: 'res', id: 2, ok: false, kind: 'error', message: 'nope' },
      { t: 'res', id: 2, result: { ok: false, kind: 'error', message: 'nope' } },
    ],
  ])('accepts %j', (raw, parsed) => {
    expect(parse(raw)).toEqual(parsed);
  });

  it.each([
    null,
    'ready',
    [{ t: 'ready' }],
    { t: 'nope' },
    { t: 'loadErr' },
    { t: 'loadErr', message: 42 },
    { t: 'log', id: 1, level: 'evil', message: 'x', at: 0 },
    { t: 'log', id: 1, level: 'log', message: { toString: 'x' }, at: 0 },
    { t: 'log', id: 1, level: 'log', message: 'x', at: Infinity },
    { t: 'log', id: 0, level: 'log', message: 'x', at: 0 },
    { t: 'log', id: '1', level: 'log', message: 'x', at: 0 },
    { t: 'res', id: 1.5, ok: true },
    { t: 'res', id: 1, ok: 'yes' },
    { t: 'res', id: 1, ok: true, json: { a: 1 } },
    { t: 'res', id: 1, ok: false, kind: 'timeout', message: 'x' },
    { t: 'res', id: 1, ok: false, kind: 'error' },
    { t: '__proto__' },
  ])('drops %j', (raw) => {
    expect(parse(raw)).toBeUndefined();
  });

  it('turns a result over the byte limit into bad_result', () => {
    expect(parse({ t: 'res', id: 1, ok: true, json: JSON.stringify('é'.repeat(60)) })).toEqual({
      t: 'res',
      id: 1,
      result: { ok: false, kind: 'bad_result', message: 'The result is larger than 100 bytes' },
    });
  });

  it('caps long strings', () => {
    const m = parse({ t: 'loadErr', message: 'x'.repeat(1e6) });
    expect(m && 'message' in m && m.message.length).toBeLessThan(2_100);
  });
});

describe('outcomeOf', () => {
  it('parses the value, keeps undefined, and reports broken JSON as bad_result', () => {
    expect(outcomeOf({ ok: true, json: '[1]' }, 5, [])).toEqual({
      status: 'ok',
      value: [1],
      durationMs: 5,
      logs: [],
    });
    expect(outcomeOf({ ok: true, json: undefined }, 5, [])).toMatchObject({ value: undefined });
    expect(outcomeOf({ ok: true, json: '{' }, 5, [])).toMatchObject({ status: 'bad_result' });
    expect(outcomeOf({ ok: false, kind: 'error', message: 'm' }, 5, [])).toMatchObject({
      status: 'error',
      message: 'm',
    });
  });
});

describe('encodePayload', () => {
  it('serialises within the limit, refuses larger or unserialisable payloads', () => {
    expect(encodePayload({ a: 1 }, 100)).toEqual({ json: '{"a":1}' });
    expect(encodePayload(undefined, 100)).toEqual({ json: 'null' });
    expect(encodePayload('x'.repeat(200), 100)).toEqual({
      error: 'The payload is larger than 100 bytes',
    });
    expect(encodePayload({ n: 1n }, 100)).toMatchObject({
      error: expect.stringContaining('not JSON'),
    });
  });
});
