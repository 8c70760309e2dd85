import {
  MAX_SCHEMAS,
  normalizeSchemaList,
  schemaListProblem,
  splitSchemaList,
} from './schema-list';

const EXPOSED = { min: 1, max: MAX_SCHEMAS, refuseReserved: true };
const SEARCH_PATH = { min: 0, max: MAX_SCHEMAS, refuseReserved: false };

describe('schema lists', () => {
  it('splits on commas and trims, an empty string being no schema', () => {
    expect(splitSchemaList(' public , api ')).toEqual(['public', 'api']);
    expect(splitSchemaList('')).toEqual([]);
    expect(splitSchemaList('   ')).toEqual([]);
    expect(normalizeSchemaList('public,api ,  v1')).toBe('public, api, v1');
    expect(normalizeSchemaList('')).toBe('');
  });

  it.each(['public', 'public, api', 'api,_v2,a$b', 'A1, b_2'])('accepts %j', (value) => {
    expect(schemaListProblem('db_schema', value, EXPOSED)).toBeNull();
  });

  it.each<[unknown, RegExp]>([
    ['', /must list 1 to 20 schemas/],
    [' ', /must list 1 to 20 schemas/],
    [Array.from({ length: 21 }, (_, i) => `s${i}`).join(','), /must list 1 to 20 schemas/],
    ['public,,api', /has an empty entry/],
    ['public,', /has an empty entry/],
    ['1abc', /invalid schema name "1abc"/],
    ['$x', /invalid schema name/],
    ['my schema', /invalid schema name/],
    ['public; drop table x', /invalid schema name/],
    ['"quoted"', /invalid schema name/],
    ['a'.repeat(64), /invalid schema name/],
    [42, /must be a string/],
    [null, /must be a string/],
  ])('refuses %j as db_schema', (value, reason) => {
    expect(schemaListProblem('db_schema', value, EXPOSED)).toMatch(reason);
  });

  it.each(['auth', 'storage', '_platform', 'pg_catalog', 'information_schema', 'pg_temp', 'AUTH'])(
    'refuses to expose the reserved schema %s',
    (name) => {
      expect(schemaListProblem('db_schema', `public, ${name}`, EXPOSED)).toBe(
        `db_schema must not expose the schema "${name}": ` +
          'auth, storage, _platform, pg_catalog, information_schema and pg_* schemas are reserved',
      );
    },
  );

  it('lets the extra search path be empty, but not malformed', () => {
    expect(schemaListProblem('db_extra_search_path', '', SEARCH_PATH)).toBeNull();
    expect(schemaListProblem('db_extra_search_path', 'public, extensions', SEARCH_PATH)).toBeNull();
    expect(schemaListProblem('db_extra_search_path', 'public,,x', SEARCH_PATH)).toMatch(/empty/);
    expect(
      schemaListProblem('db_extra_search_path', Array(21).fill('x').join(','), SEARCH_PATH),
    ).toBe('db_extra_search_path must list at most 20 schemas');
  });
});
