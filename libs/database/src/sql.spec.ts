import { connectionUrl, databaseNameOf, quoteIdent, quoteLiteral } from './sql';

describe('quoting', () => {
  it('quotes identifiers and doubles embedded quotes', () => {
    expect(quoteIdent('users')).toBe('"users"');
    expect(quoteIdent('we"ird')).toBe('"we""ird"');
    expect(() => quoteIdent('')).toThrow();
    expect(() => quoteIdent('a\0b')).toThrow();
  });

  it('quotes literals like pg escapeLiteral', () => {
    expect(quoteLiteral("it's")).toBe("'it''s'");
    expect(quoteLiteral('a\\b')).toBe("E'a\\\\b'");
    expect(() => quoteLiteral('\0')).toThrow();
  });
});

describe('connectionUrl', () => {
  it('swaps the database and user, encoding special characters', () => {
    const url = connectionUrl('postgres://postgres:pw@db:5432/platform?sslmode=disable', 'proj_x', {
      name: 'abc_admin',
      password: 'p@ss/word',
    });
    expect(url).toBe('postgres://abc_admin:p%40ss%2Fword@db:5432/proj_x?sslmode=disable');
    expect(databaseNameOf(url)).toBe('proj_x');
  });
});
