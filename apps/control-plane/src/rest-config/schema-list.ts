/**
 * The comma-separated schema lists of the REST settings (`db_schema`, `db_extra_search_path`),
 * as Supabase writes them: `"public, api"`.
 */

/** An unquoted PostgreSQL identifier. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;

/** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1), so a longer name is not what it says. */
const MAX_IDENTIFIER_LENGTH = 63;

export const MAX_SCHEMAS = 20;

/**
 * The platform's own schemas and PostgreSQL's: the REST API must never expose them, whatever
 * grants a project adds. Compared case-insensitively, so a consumer that folds case cannot be
 * tricked by `AUTH`.
 */
const RESERVED_SCHEMAS = ['auth', 'storage', '_platform', 'pg_catalog', 'information_schema'];

export const isReservedSchema = (name: string): boolean => {
  const lower = name.toLowerCase();
  return RESERVED_SCHEMAS.includes(lower) || lower.startsWith('pg_');
};

export interface SchemaListRule {
  min: number;
  max: number;
  /** Refuse the reserved schemas (for the exposed ones). */
  refuseReserved: boolean;
}

/** `" public , api "` → `['public', 'api']`; an empty or blank string is no schema at all. */
export const splitSchemaList = (value: string): string[] =>
  value.trim() === '' ? [] : value.split(',').map((s) => s.trim());

/** The stored form: entries trimmed, joined with `', '`. */
export const normalizeSchemaList = (value: string): string => splitSchemaList(value).join(', ');

/** Why `value` is not an acceptable list for `field`, or null when it is. */
export function schemaListProblem(
  field: string,
  value: unknown,
  rule: SchemaListRule,
): string | null {
  if (typeof value !== 'string') return `${field} must be a string of comma-separated schema names`;
  const names = splitSchemaList(value);
  if (names.length < rule.min || names.length > rule.max) {
    return rule.min > 0
      ? `${field} must list ${rule.min} to ${rule.max} schemas`
      : `${field} must list at most ${rule.max} schemas`;
  }
  const bad = names.find((n) => !IDENTIFIER.test(n) || n.length > MAX_IDENTIFIER_LENGTH);
  if (bad !== undefined) {
    return bad === ''
      ? `${field} has an empty entry`
      : `${field} has an invalid schema name "${bad.slice(0, 80)}": use letters, digits, _ and $, ` +
          `not starting with a digit or $, at most ${MAX_IDENTIFIER_LENGTH} characters`;
  }
  const reserved = rule.refuseReserved ? names.find(isReservedSchema) : undefined;
  if (reserved !== undefined) {
    return (
      `${field} must not expose the schema "${reserved}": ` +
      `${RESERVED_SCHEMAS.join(', ')} and pg_* schemas are reserved`
    );
  }
  return null;
}
