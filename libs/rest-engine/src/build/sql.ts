import type { JsonStep, Operation } from '../parse/ast';
import { quoteIdent } from '../plan/plan';
import type {
  CallPlan,
  EmbedNode,
  Media,
  Plan,
  PlannedCondition,
  PlannedFilter,
  PlannedItem,
  PlannedOrder,
  ReadNode,
  ReadPlan,
  WritePlan,
} from '../plan/types';
import type { Table } from '../schema/types';

/** One parameterized statement: the text depends only on the request's shape. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** Output columns every main statement returns (see render). */
// A type alias, not an interface: it must fit pg's row constraint (an index signature).
export type MainRow = {
  total_result_set: string | null;
  page_total: string;
  body: string | null;
  response_headers: string | null;
  response_status: string | null;
  response_inserted: string | null;
};

class Builder {
  readonly values: unknown[] = [];
  private aliases = 0;

  /** Binds a value; `cast` is schema or builder text (a type name), never user input. */
  param(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ''}`;
  }

  alias(base: string): string {
    this.aliases++;
    return quoteIdent(`pgrst_${base}_${this.aliases}`);
  }
}

const qualified = (t: { schema: string; name: string }): string =>
  `${quoteIdent(t.schema)}.${quoteIdent(t.name)}`;

// ---------------------------------------------------------------------------------------------
// Expressions

function jsonPathSql(b: Builder, base: string, steps: JsonStep[], isJson: boolean): string {
  if (steps.length === 0) return base;
  let expr = isJson ? base : `to_jsonb(${base})`;
  for (const step of steps) {
    const key =
      typeof step.key === 'number' ? b.param(step.key, 'integer') : b.param(step.key, 'text');
    expr = `${expr}${step.arrow}${key}`;
  }
  return `(${expr})`;
}

function columnSql(
  b: Builder,
  ref: string,
  column: string,
  steps: JsonStep[],
  isJson: boolean,
): string {
  return jsonPathSql(b, `${ref}.${quoteIdent(column)}`, steps, isJson);
}

const QUANT_SQL: Record<string, string> = {
  eq: '=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'LIKE',
  ilike: 'ILIKE',
  match: '~',
  imatch: '~*',
};

const SIMPLE_SQL: Record<string, string> = {
  neq: '<>',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxr: '&<',
  nxl: '&>',
  adj: '-|-',
};

const FTS_FN: Record<string, string> = {
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery',
};

const IS_SQL: Record<string, string> = {
  null: 'IS NULL',
  not_null: 'IS NOT NULL',
  true: 'IS TRUE',
  false: 'IS FALSE',
  unknown: 'IS UNKNOWN',
};

/** Re-quotes `in` values into one array literal: `{"a","b \"c\""}`. */
export function arrayLiteral(values: string[]): string {
  const quoted = values.map((v) => {
    // Text cannot hold NUL: PostgREST truncates there too.
    const nul = v.indexOf(String.fromCharCode(0));
    const text = nul < 0 ? v : v.slice(0, nul);
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${quoted.join(',')}}`;
}

const likePattern = (value: string): string => value.replace(/\*/g, '%');

function operationSql(b: Builder, expr: string, operation: Operation, isTsvector: boolean): string {
  switch (operation.op) {
    case 'in':
      return `${expr} = ANY(${b.param(arrayLiteral(operation.values))})`;
    case 'is':
      return `${expr} ${IS_SQL[operation.value]}`;
    case 'isdistinct':
      return `${expr} IS DISTINCT FROM ${b.param(operation.value)}`;
    case 'fts':
    case 'plfts':
    case 'phfts':
    case 'wfts': {
      const config =
        operation.config === undefined ? undefined : b.param(operation.config, 'regconfig');
      const vector = isTsvector
        ? expr
        : `to_tsvector(${config === undefined ? '' : `${config}, `}${expr})`;
      const query = b.param(operation.value, 'text');
      return `${vector} @@ ${FTS_FN[operation.op]}(${config === undefined ? '' : `${config}, `}${query})`;
    }
    case 'neq':
    case 'cs':
    case 'cd':
    case 'ov':
    case 'sl':
    case 'sr':
    case 'nxr':
    case 'nxl':
    case 'adj':
      return `${expr} ${SIMPLE_SQL[operation.op]} ${b.param(operation.value)}`;
    default: {
      const like = operation.op === 'like' || operation.op === 'ilike';
      const value = like ? likePattern(operation.value) : operation.value;
      const sqlOp = QUANT_SQL[operation.op]!;
      if (operation.quantifier) {
        return `${expr} ${sqlOp} ${operation.quantifier.toUpperCase()}(${b.param(value)})`;
      }
      return `${expr} ${sqlOp} ${b.param(value)}`;
    }
  }
}

function filterSql(b: Builder, ref: string, f: PlannedFilter): string {
  const expr = columnSql(b, ref, f.column, f.jsonPath, f.isJson);
  const sql = operationSql(b, expr, f.operation, f.isTsvector);
  return f.negated ? `NOT (${sql})` : sql;
}

/** Whether an embed's lateral subquery produced a row (to-one) or a non-empty array. */
const presence = (e: EmbedNode): string =>
  e.spread ? `${e.lateral}."pgrst_found" IS NOT NULL` : `${e.lateral}."pgrst_j" IS NOT NULL`;

function conditionSql(b: Builder, ref: string, c: PlannedCondition): string {
  switch (c.type) {
    case 'filter':
      return filterSql(b, ref, c);
    case 'embed-null':
      return c.isNull ? `NOT (${presence(c.embed)})` : presence(c.embed);
    case 'logic': {
      const inner = c.conditions
        .map((x) => conditionSql(b, ref, x))
        .join(` ${c.operator.toUpperCase()} `);
      return c.negated ? `NOT (${inner})` : `(${inner})`;
    }
  }
}

function joinCondition(
  rel: EmbedNode['relationship'],
  parentRef: string,
  childRef: string,
): string[] {
  return rel.columns.map(
    (p) => `${childRef}.${quoteIdent(p.to)} = ${parentRef}.${quoteIdent(p.from)}`,
  );
}

function orderSql(b: Builder, node: ReadNode, o: PlannedOrder): string {
  let expr: string;
  if (o.relationship) {
    const alias = b.alias('order');
    const value = columnSql(b, alias, o.column, o.jsonPath, o.isJson);
    const on = joinCondition(o.relationship, node.ref, alias).join(' AND ');
    expr = `(SELECT ${value} FROM ${qualified(o.relationship.target)} AS ${alias} WHERE ${on} LIMIT 1)`;
  } else {
    expr = columnSql(b, node.ref, o.column, o.jsonPath, o.isJson);
  }
  const dir = o.direction === 'desc' ? ' DESC' : o.direction === 'asc' ? ' ASC' : '';
  const nulls = o.nulls === 'first' ? ' NULLS FIRST' : o.nulls === 'last' ? ' NULLS LAST' : '';
  return `${expr}${dir}${nulls}`;
}

// ---------------------------------------------------------------------------------------------
// Read nodes

function selectList(b: Builder, node: ReadNode, extra: string[] = []): string {
  const items = node.select.flatMap((item) => itemSql(b, node, item));
  const all = [...extra, ...items];
  return all.join(', ');
}

function itemSql(b: Builder, node: ReadNode, item: PlannedItem): string[] {
  switch (item.kind) {
    case 'star':
      return item.columns
        ? item.columns.map((c) => `${node.ref}.${quoteIdent(c)}`)
        : [`${node.ref}.*`];
    case 'column': {
      let expr = columnSql(b, node.ref, item.column, item.jsonPath, item.isJson);
      if (item.cast !== undefined) expr = `CAST(${expr} AS ${item.cast})`;
      return [`${expr} AS ${quoteIdent(item.outputName)}`];
    }
    case 'embed': {
      const e = item.embed;
      if (e.hidden) return [];
      if (e.spread) {
        return e.spreadNames.map((n) =>
          e.toOne
            ? `${e.lateral}.${quoteIdent(n)} AS ${quoteIdent(n)}`
            : `COALESCE(${e.lateral}.${quoteIdent(n)}, '[]') AS ${quoteIdent(n)}`,
        );
      }
      return [
        e.toOne
          ? `${e.lateral}."pgrst_j" AS ${quoteIdent(e.outputName)}`
          : `COALESCE(${e.lateral}."pgrst_j", '[]') AS ${quoteIdent(e.outputName)}`,
      ];
    }
  }
}

const embedsOf = (node: ReadNode): EmbedNode[] =>
  node.select.flatMap((i) => (i.kind === 'embed' ? [i.embed] : []));

/** `LEFT|INNER JOIN LATERAL (...) AS lat ON ...` for one embed of `parent`. */
function lateralJoin(b: Builder, parent: ReadNode, e: EmbedNode): string {
  const child = e.node;
  const target = child.source.table!;
  const rel = e.relationship;
  let from = `${qualified(target)} AS ${child.ref}`;
  let on: string[];
  if (rel.junction) {
    const j = b.alias('junction');
    const toTarget = rel.junction.targetColumns.map(
      (p) => `${j}.${quoteIdent(p.from)} = ${child.ref}.${quoteIdent(p.to)}`,
    );
    from += ` INNER JOIN ${qualified(rel.junction.table)} AS ${j} ON ${toTarget.join(' AND ')}`;
    on = rel.junction.originColumns.map(
      (p) => `${j}.${quoteIdent(p.to)} = ${parent.ref}.${quoteIdent(p.from)}`,
    );
  } else {
    on = joinCondition(rel, parent.ref, child.ref);
  }
  const row = b.alias('row');
  let body: string;
  if (e.spread && e.toOne) {
    body = nodeQuery(b, child, from, on, [`true AS "pgrst_found"`]);
  } else if (e.spread) {
    const aggs = e.spreadNames.map((n) => {
      return `json_agg(${row}.${quoteIdent(n)}) AS ${quoteIdent(n)}`;
    });
    body = `SELECT bool_or(true) AS "pgrst_found", ${aggs.join(', ')} FROM (${nodeQuery(b, child, from, on)}) AS ${row}`;
  } else if (e.toOne) {
    body = `SELECT row_to_json(${row}) AS "pgrst_j" FROM (${nodeQuery(b, child, from, on)}) AS ${row}`;
  } else {
    body = `SELECT json_agg(${row}) AS "pgrst_j" FROM (${nodeQuery(b, child, from, on)}) AS ${row}`;
  }
  const join = e.inner ? 'INNER JOIN LATERAL' : 'LEFT JOIN LATERAL';
  const condition = e.inner && !e.toOne ? presence(e) : 'TRUE';
  return `${join} (${body}) AS ${e.lateral} ON ${condition}`;
}

/** SELECT of one node: its items, its embeds' laterals, filters, order and range. */
function nodeQuery(
  b: Builder,
  node: ReadNode,
  from: string,
  extraWhere: string[] = [],
  extraItems: string[] = [],
): string {
  // Laterals first: their aliases are referenced by the select list and embed-null filters.
  const joins = embedsOf(node).map((e) => lateralJoin(b, node, e));
  const items = selectList(b, node, extraItems);
  const where = [...extraWhere, ...node.conditions.map((c) => conditionSql(b, node.ref, c))];
  let sql = `SELECT ${items} FROM ${from}`;
  if (joins.length > 0) sql += ` ${joins.join(' ')}`;
  if (where.length > 0) sql += ` WHERE ${where.join(' AND ')}`;
  if (node.order.length > 0)
    sql += ` ORDER BY ${node.order.map((o) => orderSql(b, node, o)).join(', ')}`;
  if (node.limit !== undefined) sql += ` LIMIT ${b.param(node.limit)}`;
  if (node.offset !== undefined && node.offset > 0) sql += ` OFFSET ${b.param(node.offset)}`;
  return sql;
}

/** The row count of a read, ignoring limit/offset: filters plus the embeds that filter rows. */
function countQuery(b: Builder, node: ReadNode, from: string): string {
  const filtering = new Set<EmbedNode>();
  const visit = (c: PlannedCondition): void => {
    if (c.type === 'embed-null') filtering.add(c.embed);
    if (c.type === 'logic') c.conditions.forEach(visit);
  };
  node.conditions.forEach(visit);
  for (const e of embedsOf(node)) if (e.inner) filtering.add(e);
  const joins = [...filtering].map((e) => lateralJoin(b, node, e));
  const where = node.conditions.map((c) => conditionSql(b, node.ref, c));
  let sql = `SELECT 1 FROM ${from}`;
  if (joins.length > 0) sql += ` ${joins.join(' ')}`;
  if (where.length > 0) sql += ` WHERE ${where.join(' AND ')}`;
  return sql;
}

// ---------------------------------------------------------------------------------------------
// Main statements

function bodySql(media: Media, head: boolean, singular: boolean): string {
  if (head) return 'NULL::text';
  const row = media.stripNulls ? 'json_strip_nulls(row_to_json(_postgrest_t))' : '_postgrest_t';
  if (media.type === 'csv') {
    const header = `(SELECT string_agg(pgrst_k, ',') FROM json_object_keys(json_agg(_postgrest_t)->0) AS pgrst_k)`;
    const lines = `string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), chr(10))`;
    return `coalesce(${header}, '') || chr(10) || coalesce(${lines}, '')`;
  }
  if (media.type === 'object' || singular) return `coalesce((json_agg(${row})->0)::text, 'null')`;
  return `coalesce(json_agg(${row}), '[]')::text`;
}

const RESPONSE_GUCS = `nullif(current_setting('response.headers', true), '') AS response_headers,
  nullif(current_setting('response.status', true), '') AS response_status`;

function mainSelect(total: string, body: string, inserted: string, source: string): string {
  return `SELECT ${total} AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, ${body} AS body,
  ${RESPONSE_GUCS}, ${inserted} AS response_inserted
FROM (${source}) _postgrest_t`;
}

export function buildRead(plan: ReadPlan): Statement {
  const b = new Builder();
  const root = plan.root;
  const from = qualified(root.source.table!);
  const source = nodeQuery(b, root, from);
  let count = '';
  let total = 'NULL::bigint';
  if (plan.count === 'exact') {
    count = `, pgrst_source_count AS (${countQuery(b, root, from)})`;
    total = '(SELECT pg_catalog.count(*) FROM pgrst_source_count)';
  } else if (plan.count === 'estimated') {
    // Counted exactly up to max-rows + 1; above that the planner's estimate is used.
    count = `, pgrst_source_count AS (${countQuery(b, root, from)} LIMIT ${b.param(plan.maxRows + 1)})`;
    total = '(SELECT pg_catalog.count(*) FROM pgrst_source_count)';
  }
  const text = `WITH pgrst_source AS (${source})${count}
${mainSelect(total, bodySql(plan.media, plan.head, false), 'NULL::bigint', 'SELECT * FROM pgrst_source')}`;
  return { text, values: b.values };
}

/** The count query alone, for `EXPLAIN (FORMAT JSON)` (count=planned / estimated). */
export function buildCountQuery(plan: ReadPlan): Statement {
  const b = new Builder();
  const from = qualified(plan.root.source.table!);
  return { text: countQuery(b, plan.root, from), values: b.values };
}

function insertSql(b: Builder, plan: WritePlan): string {
  const table = qualified(plan.table);
  const cols = plan.columns.map(quoteIdent);
  let select: string;
  if (plan.missingDefault) {
    const exprs = plan.columns.map((c) => {
      const column = plan.table.columns.find((x) => x.name === c);
      const fallback = defaultExpr(b, plan.table, c, column?.default ?? null);
      return `CASE WHEN pgrst_elem.j::jsonb ? ${b.param(c, 'text')} THEN pgrst_body.${quoteIdent(c)} ELSE ${fallback} END`;
    });
    select = `SELECT ${exprs.join(', ')} FROM json_array_elements(${b.param(plan.payload, 'json')}) AS pgrst_elem(j), LATERAL json_populate_record(NULL::${table}, pgrst_elem.j) AS pgrst_body`;
  } else {
    select = `SELECT ${cols.map((c) => `pgrst_body.${c}`).join(', ')} FROM json_populate_recordset(NULL::${table}, ${b.param(plan.payload, 'json')}) AS pgrst_body`;
  }
  let sql = `INSERT INTO ${table}${cols.length > 0 ? ` (${cols.join(', ')})` : ''} ${select}`;
  if (plan.onConflict) {
    const target = plan.onConflict.columns.map(quoteIdent).join(', ');
    if (plan.onConflict.resolution === 'ignore-duplicates' || cols.length === 0) {
      sql += ` ON CONFLICT (${target}) DO NOTHING`;
    } else {
      sql += ` ON CONFLICT (${target}) DO UPDATE SET ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;
    }
  }
  return sql;
}

/** A column's default for `missing=default`: its catalog expression (schema text) or NULL. */
function defaultExpr(b: Builder, table: Table, column: string, expr: string | null): string {
  if (expr === null) return 'NULL';
  if (expr === 'identity') {
    return `nextval(pg_get_serial_sequence(${b.param(qualified(table), 'text')}, ${b.param(column, 'text')}))`;
  }
  return expr;
}

function writeSql(b: Builder, plan: WritePlan): string {
  const table = qualified(plan.table);
  const where = plan.conditions.map((c) => conditionSql(b, table, c));
  const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  switch (plan.kind) {
    case 'insert':
      return insertSql(b, plan);
    case 'update':
      // Nothing to set: a no-op that still binds the filters' parameters.
      if (plan.columns.length === 0) {
        return `SELECT ${table}.* FROM ${table} WHERE false${where.length > 0 ? ` AND ${where.join(' AND ')}` : ''}`;
      }
      return `UPDATE ${table} SET ${plan.columns
        .map((c) => `${quoteIdent(c)} = pgrst_body.${quoteIdent(c)}`)
        .join(
          ', ',
        )} FROM json_populate_record(NULL::${table}, ${b.param(plan.payload, 'json')}) AS pgrst_body${whereSql}`;
    case 'delete':
      return `DELETE FROM ${table}${whereSql}`;
  }
}

export function buildWrite(plan: WritePlan): Statement {
  const b = new Builder();
  const table = qualified(plan.table);
  const upsertMerge = plan.onConflict?.resolution === 'merge-duplicates';
  const returning = [`${table}.*`];
  if (upsertMerge) returning.push('(xmax = 0) AS "pgrst_inserted"');
  let write = writeSql(b, plan);
  if (!(plan.kind === 'update' && plan.columns.length === 0))
    write += ` RETURNING ${returning.join(', ')}`;
  const alias = quoteIdent(plan.table.name);
  let source = 'SELECT * FROM pgrst_source';
  let body = "''::text";
  if (plan.returning) {
    source = nodeQuery(b, plan.returning, `pgrst_source AS ${alias}`);
    body = bodySql(plan.media, false, false);
  } else if (plan.locationKey) {
    source = `SELECT ${plan.locationKey.map((k) => `${alias}.${quoteIdent(k)}`).join(', ')} FROM pgrst_source AS ${alias}`;
    body = bodySql({ type: 'json', stripNulls: false, contentType: '' }, false, false);
  }
  const inserted = upsertMerge
    ? '(SELECT pg_catalog.count(*) FROM pgrst_source WHERE "pgrst_inserted")'
    : 'NULL::bigint';
  const text = `WITH pgrst_source AS (${write})
${mainSelect('NULL::bigint', body, inserted, source)}`;
  return { text, values: b.values };
}

function callExpr(b: Builder, plan: CallPlan): { from?: string; call: string } {
  const fn = qualified(plan.fn);
  if (plan.wholeBody) {
    return { call: `${fn}(${b.param(plan.payload ?? '{}', plan.wholeBody.type)})` };
  }
  if (plan.payload !== undefined) {
    if (plan.args.length === 0) return { call: `${fn}()` };
    const columns = plan.args.map((a) => `${quoteIdent(a.param.name)} ${a.param.type}`).join(', ');
    const from = `json_to_record(${b.param(plan.payload, 'json')}) AS pgrst_args(${columns})`;
    const named = plan.args.map(
      (a) =>
        `${a.param.variadic ? 'VARIADIC ' : ''}${quoteIdent(a.param.name)} := pgrst_args.${quoteIdent(a.param.name)}`,
    );
    return { from, call: `${fn}(${named.join(', ')})` };
  }
  const named = plan.args.map((a) => {
    const values = a.values ?? [];
    const value = a.param.variadic ? arrayLiteral(values) : (values[0] ?? '');
    return `${a.param.variadic ? 'VARIADIC ' : ''}${quoteIdent(a.param.name)} := ${b.param(value, a.param.type)}`;
  });
  return { call: `${fn}(${named.join(', ')})` };
}

export function buildCall(plan: CallPlan): Statement {
  const b = new Builder();
  const { from, call } = callExpr(b, plan);
  let source: string;
  let body: string;
  let total = 'NULL::bigint';
  let count = '';
  if (plan.root) {
    const fromSql = from ? `${from}, LATERAL ${call} AS "pgrst_call"` : `${call} AS "pgrst_call"`;
    source = nodeQuery(b, plan.root, fromSql);
    if (plan.count === 'exact' || plan.count === 'estimated') {
      count = `, pgrst_source_count AS (${countQuery(b, plan.root, fromSql)})`;
      total = '(SELECT pg_catalog.count(*) FROM pgrst_source_count)';
    }
    body = bodySql(plan.media, plan.head, !plan.fn.returns.setOf);
  } else {
    source = `SELECT ${call} AS pgrst_scalar${from ? ` FROM ${from}` : ''}`;
    const range = plan.scalarRange;
    if (range?.limit !== undefined) source += ` LIMIT ${b.param(range.limit)}`;
    if (range && range.offset > 0) source += ` OFFSET ${b.param(range.offset)}`;
    const agg = plan.fn.returns.setOf
      ? `coalesce(json_agg(_postgrest_t.pgrst_scalar), '[]')::text`
      : `coalesce((json_agg(_postgrest_t.pgrst_scalar)->0)::text, 'null')`;
    body = plan.head
      ? 'NULL::text'
      : plan.media.type === 'csv'
        ? bodySql(plan.media, false, false)
        : agg;
  }
  const text = `WITH pgrst_source AS (${source})${count}
${mainSelect(total, body, 'NULL::bigint', 'SELECT * FROM pgrst_source')}`;
  return { text, values: b.values };
}

export function buildStatement(plan: Plan): Statement {
  switch (plan.action) {
    case 'read':
      return buildRead(plan);
    case 'write':
      return buildWrite(plan);
    case 'call':
      return buildCall(plan);
  }
}
