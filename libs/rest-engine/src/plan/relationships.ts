import { PostgrestError } from '../postgrest-error';
import { qualifiedKey, type Relationship, type SchemaCache, type Table } from '../schema/types';
import { closest } from './fuzzy';

const singleColumn = (names: string[], hint: string): boolean =>
  names.length === 1 && names[0] === hint;

/** Whether `hint` (after `!`) names this relationship: FK constraint, FK column, or junction. */
function matchesHint(rel: Relationship, hint: string): boolean {
  if (rel.junction) {
    return (
      rel.junction.table.name === hint ||
      rel.junction.originConstraint === hint ||
      rel.junction.targetConstraint === hint
    );
  }
  return (
    rel.constraint === hint ||
    singleColumn(
      rel.columns.map((c) => c.from),
      hint,
    ) ||
    singleColumn(
      rel.columns.map((c) => c.to),
      hint,
    )
  );
}

/** Cardinality to-one: the embed is an object (or null), not an array. */
export const isToOne = (rel: Relationship): boolean =>
  rel.cardinality === 'm2o' || rel.cardinality === 'o2o';

/** Whether the FK columns live on the origin side (m2o, or the o2o that holds the key). */
const fkOnOrigin = (rel: Relationship): boolean =>
  rel.cardinality === 'm2o' || (rel.cardinality === 'o2o' && rel.ownsKey === true);

/**
 * PostgREST's `findRel`: the relationships from `origin` that `target!hint` can mean.
 * Target is a table name, or (deprecated, to-one only) an FK constraint or FK column name.
 */
export function findRelationship(
  cache: SchemaCache,
  origin: Table,
  target: string,
  hint: string | undefined,
): Relationship {
  const all = cache.relationships.get(qualifiedKey(origin)) ?? [];
  const matches = all.filter((rel) => {
    const byTable =
      rel.target.name === target &&
      // Self-reference by table name means the children (o2m), not the parent, hint or not.
      !(rel.isSelf && rel.cardinality === 'm2o') &&
      (hint === undefined || matchesHint(rel, hint));
    if (byTable) return true;
    const viaKey =
      !rel.junction &&
      fkOnOrigin(rel) &&
      (rel.constraint === target ||
        singleColumn(
          rel.columns.map((c) => c.from),
          target,
        ));
    return viaKey && (hint === undefined || rel.target.name === hint || matchesHint(rel, hint));
  });
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw noRelationship(cache, origin, target, hint);
  throw ambiguous(origin, target, matches);
}

function noRelationship(
  cache: SchemaCache,
  origin: Table,
  target: string,
  hint: string | undefined,
): PostgrestError {
  const names = (cache.relationships.get(qualifiedKey(origin)) ?? []).map((r) => r.target.name);
  const suggestion = closest(target, new Set(names.filter((n) => n !== target)));
  return new PostgrestError(
    'PGRST200',
    400,
    `Could not find a relationship between '${origin.name}' and '${target}' in the schema cache`,
    `Searched for a foreign key relationship between '${origin.name}' and '${target}'` +
      (hint === undefined ? '' : ` using the hint '${hint}'`) +
      ` in the schema '${origin.schema}', but no matches were found.`,
    suggestion === undefined ? null : `Perhaps you meant '${suggestion}' instead of '${target}'.`,
  );
}

function describe(rel: Relationship): string {
  const cols = (side: 'from' | 'to'): string => rel.columns.map((c) => c[side]).join(', ');
  if (rel.junction) {
    const j = rel.junction;
    return (
      `${rel.origin.name}(${j.originColumns.map((c) => c.from).join(', ')}) and ` +
      `${rel.target.name}(${j.targetColumns.map((c) => c.to).join(', ')}) using ` +
      `${j.table.name}(${j.originColumns.map((c) => c.to).join(', ')}) and ` +
      `${j.table.name}(${j.targetColumns.map((c) => c.from).join(', ')})`
    );
  }
  return `${rel.constraint} using ${rel.origin.name}(${cols('from')}) and ${rel.target.name}(${cols('to')})`;
}

const CARDINALITY_NAMES: Record<Relationship['cardinality'], string> = {
  m2o: 'many-to-one',
  o2m: 'one-to-many',
  o2o: 'one-to-one',
  m2m: 'many-to-many',
};

function ambiguous(origin: Table, target: string, matches: Relationship[]): PostgrestError {
  const details = matches.map((rel) => ({
    cardinality: CARDINALITY_NAMES[rel.cardinality],
    embedding: `${origin.name} with ${rel.target.name}`,
    relationship: describe(rel),
  }));
  const options = matches
    .map((rel) => `'${target}!${rel.junction ? rel.junction.table.name : rel.constraint}'`)
    .join(', ');
  return new PostgrestError(
    'PGRST201',
    300,
    `Could not embed because more than one relationship was found for '${origin.name}' and '${target}'`,
    details,
    `Try changing '${target}' to one of the following: ${options}. Find the desired relationship in the 'details' key.`,
  );
}
