/**
 * Seeded generator of hostile REST requests for fuzz.e2e-spec.ts: valid PostgREST grammar
 * (select with embeds, filters, logic trees, order, ranges, casts, JSON paths) mixed with
 * fragments that break parsers and quoting. Same seed, same requests.
 */

import {
  ACCEPT,
  type ColumnType,
  CONTENT_TYPES,
  FTS,
  FUNCTIONS,
  HOSTILE,
  HOSTILE_ACCEPT,
  HOSTILE_CONTENT_TYPES,
  HOSTILE_PATHS,
  HOSTILE_PREFER,
  HOSTILE_RANGES,
  JSON_FIELDS,
  JSON_FILTERS,
  OPS,
  PREFER,
  PROFILES,
  RANGE_OPS,
  RANGES,
  TABLES,
  type TableShape,
  TO_ONE,
  TYPED_CASTS,
  TYPED_FILTERS,
} from './fuzz-vocabulary';

/** mulberry32: small, fast and good enough to pick grammar pieces. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    int,
    chance: (p: number): boolean => next() < p,
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
    times: <T>(min: number, max: number, make: () => T): T[] =>
      Array.from({ length: min + int(max - min + 1) }, make),
  };
}
export type Rng = ReturnType<typeof rng>;

const TABLE_NAMES = Object.keys(TABLES);

type Params = Array<[string, string]>;

export class RequestGenerator {
  /** False: the next request is built from valid grammar only. True: the hostile mix. */
  hostileMode = true;

  constructor(private readonly r: Rng) {}

  hostile = (): string => this.r.pick(HOSTILE);

  /** Inserts a hostile fragment somewhere in `s`, or replaces it, now and then. */
  taint(s: string, p = 0.25): string {
    if (!this.hostileMode || !this.r.chance(p)) return s;
    // Code points, not UTF-16 units: a split surrogate pair is not a string any client can send.
    const chars = Array.from(s);
    const at = this.r.int(chars.length + 1);
    const bad = this.hostile();
    return this.r.chance(0.2) ? bad : [...chars.slice(0, at), bad, ...chars.slice(at)].join('');
  }

  /** Valid most of the time; in hostile mode, sometimes from the hostile list. */
  private choose(valid: readonly string[], hostile: readonly string[]): string {
    return this.hostileMode && this.r.chance(0.4) ? this.r.pick(hostile) : this.r.pick(valid);
  }

  number(): string {
    return !this.hostileMode || this.r.chance(0.6)
      ? String(this.r.int(12))
      : this.r.pick(['99999999999999999999', '-1', '1.5', '1e10', '-0', '2147483648']);
  }

  /** A value of no particular type (hostile mode). */
  value(): string {
    const r = this.r;
    return this.taint(
      r.pick([
        () => this.number(),
        () => r.pick(['Alien', 'Blade Runner', '*Run*', 'a%b_c', 'null', '', 'true']),
        () => `{${r.times(0, 3, () => r.pick(['scifi', 'drama', '"a,b"', '1'])).join(',')}}`,
        () => r.pick(['[110,120)', '(,)', '[1,1]', 'empty', '[a,b)']),
        () => r.pick(['{"budget": 11}', '{"a":[1,2]}', '[]', '{']),
        () => r.pick(['2003-01-01', '1979-13-45', 'infinity', 'epoch']),
      ])(),
    );
  }

  column(t: TableShape): [string, ColumnType] {
    return this.r.pick(Object.entries(t.columns));
  }

  /** A column, sometimes quoted or with a JSON path; in hostile mode possibly nonsense. */
  field(t: TableShape): string {
    const r = this.r;
    if (this.hostileMode && r.chance(0.1)) return this.hostile();
    if (t.columns.data && r.chance(0.2)) return r.pick(JSON_FIELDS);
    const [col] = this.column(t);
    if (this.hostileMode && r.chance(0.2)) {
      const steps = r.times(
        1,
        3,
        () =>
          `${r.pick(['->', '->>'])}${r.pick(['budget', 'crew', 'dp', '0', '-1', "'x'", 'a b'])}`,
      );
      return col + steps.join('');
    }
    return r.chance(0.05) ? `"${col}"` : col;
  }

  /** `[field, op.value]`: typed for the column, or (hostile mode) any operator and value. */
  filter(t: TableShape): [string, string] {
    const r = this.r;
    if (!this.hostileMode || r.chance(0.5)) {
      if (t.columns.data && r.chance(0.2)) return [r.pick(JSON_FIELDS), r.pick(JSON_FILTERS)];
      const [col, type] = this.column(t);
      return [this.taint(col, 0.1), this.taint(r.pick(TYPED_FILTERS[type]), 0.2)];
    }
    return [this.field(t), this.condition()];
  }

  condition(): string {
    const r = this.r;
    const neg = r.chance(0.15) ? 'not.' : '';
    const kind = r.int(10);
    if (kind < 5) {
      const quant = r.chance(0.1) ? r.pick(['(any)', '(all)']) : '';
      const v = quant ? `{${this.value()},${this.value()}}` : this.value();
      return `${neg}${r.pick(OPS)}${quant}.${v}`;
    }
    if (kind === 5) return `${neg}in.(${r.times(0, 6, () => this.value()).join(',')})`;
    if (kind === 6) {
      return `${neg}is.${r.pick(['null', 'not_null', 'true', 'false', 'unknown', 'maybe'])}`;
    }
    if (kind === 7) return `${neg}${r.pick(RANGE_OPS)}.${this.value()}`;
    if (kind === 8) {
      const cfg = r.chance(0.4) ? `(${r.pick(['english', 'simple', "english'", 'nope'])})` : '';
      return `${neg}${r.pick(FTS)}${cfg}.${this.taint('quick & fox')}`;
    }
    return `${neg}isdistinct.${this.value()}`;
  }

  /** `(a.eq.1,and(b.gt.2,...))` for or=/and=, occasionally 100 levels deep. */
  tree(t: TableShape, depth = 0): string {
    const r = this.r;
    if (depth === 0 && r.chance(0.03)) return `(${'and('.repeat(99)}id.eq.1${')'.repeat(99)})`;
    const items = r.times(1, 3, () => {
      if (depth < 3 && r.chance(0.3)) {
        return `${r.chance(0.2) ? 'not.' : ''}${r.pick(['and', 'or'])}${this.tree(t, depth + 1)}`;
      }
      const [field, cond] = this.filter(t);
      // Inside a tree, a value with `,` or `)` (ranges) must be quoted.
      const quoted = cond.replace(/^((?:not\.)?[a-z]+(?:\([a-z]+\))?\.)([[(].*[,)].*)$/, '$1"$2"');
      return `${field}.${quoted}`;
    });
    return `(${items.join(',')})`;
  }

  selectItem(t: TableShape, depth: number): string {
    const r = this.r;
    const kind = r.int(9);
    if (kind === 0) return '*';
    if (kind <= 2 && depth < 2 && t.embeds.length > 0) {
      const rel = r.pick(t.embeds);
      const spread = (TO_ONE[Object.keys(TABLES).find((n) => TABLES[n] === t)!] ?? []).includes(
        rel,
      );
      const hint = this.choose(
        ['', '', '!inner', '!left'],
        ['!fk', '!films_director_id_fkey', '!x'],
      );
      const prefix = spread && r.chance(0.3) ? '...' : r.chance(0.2) ? 'e:' : '';
      return `${prefix}${rel}${hint}(${this.select(TABLES[rel] ?? t, depth + 1)})`;
    }
    if (kind === 3) return `${r.pick(['a', 'b_c', 'x y'])}:${this.field(t)}`;
    if (kind === 4) {
      const [col, type] = this.column(t);
      return `${col}::${this.choose(TYPED_CASTS[type], [...HOSTILE, 'int', 'json'])}`;
    }
    if (kind === 5 && this.hostileMode) {
      return r.pick(['count()', 'id.count()', 'year.sum()', 'rating.avg()']);
    }
    return this.taint(this.field(t), 0.1);
  }

  select(t: TableShape, depth = 0): string {
    return this.r.times(1, 4, () => this.selectItem(t, depth)).join(',');
  }

  order(t: TableShape): string {
    const r = this.r;
    const term = () => {
      const dir = r.chance(0.5) ? this.choose(['asc', 'desc'], ['up', 'ASC', '']) : '';
      const nulls = r.chance(0.3) ? r.pick(['nullsfirst', 'nullslast']) : '';
      return [this.field(t), dir, nulls].filter((s) => s !== '').join('.');
    };
    return r.times(1, 3, term).join(',');
  }

  /** Query params as decoded `[key, value]` pairs. */
  params(t: TableShape): Params {
    const r = this.r;
    const params: Params = [];
    for (let i = r.int(6); i > 0; i--) {
      const kind = r.int(this.hostileMode ? 12 : 8);
      const embed = t.embeds.length > 0 && r.chance(0.15) ? `${r.pick(t.embeds)}.` : '';
      if (kind === 0) params.push(['select', this.select(t)]);
      else if (kind <= 2) {
        const [field, cond] = this.filter(t);
        params.push([embed + field, cond]);
      } else if (kind === 3) {
        const logic = `${r.chance(0.2) ? 'not.' : ''}${r.pick(['or', 'and'])}`;
        params.push([embed + logic, this.tree(t)]);
      } else if (kind === 4) params.push([`${embed}order`, this.order(t)]);
      else if (kind === 5) params.push([`${embed}${r.pick(['limit', 'offset'])}`, this.number()]);
      else if (kind === 6) {
        const cols = r.times(1, 3, () => this.column(t)[0]).join(',');
        params.push([r.pick(['columns', 'on_conflict']), this.taint(cols, 0.5)]);
      } else if (kind === 7) params.push(['select', this.select(t)]);
      else if (kind === 8) {
        params.push([this.taint(this.column(t)[0], 0.8), this.taint(this.condition(), 0.8)]);
      } else if (kind === 9 && r.chance(0.1)) {
        // 5000 one-digit values and raw commas keep the URL under Node's 16 KB head limit.
        const values = Array.from({ length: 5000 }, () => r.int(10)).join(',');
        params.push([this.column(t)[0], `in.(${values})`]);
      } else params.push([this.hostile(), this.hostile()]);
    }
    return params;
  }

  /** `k=v` pieces, mostly percent-encoded; some raw, so `%zz`, `+`, `&`, `=` reach the parser. */
  encode(params: Params): string[] {
    const r = this.r;
    return params.map(([k, v]) =>
      r.chance(0.6)
        ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}`
        : `${k.replace(/#/g, '%23')}=${v.replace(/#/g, '%23')}`,
    );
  }

  target(): { path: string; table?: string } {
    const r = this.r;
    const kind = r.int(20);
    if (kind < 16 || !this.hostileMode) {
      const table = r.pick(TABLE_NAMES);
      return { path: `/${table}`, table };
    }
    if (kind < 18) return { path: `/rpc/${r.pick(FUNCTIONS)}` };
    return { path: r.pick([...HOSTILE_PATHS, `/${encodeURIComponent(this.hostile())}`]) };
  }

  prefer(): string[] {
    return this.r.times(0, 3, () => this.taint(this.choose(PREFER, HOSTILE_PREFER), 0.15));
  }

  headers(): Record<string, string> {
    const r = this.r;
    const h: Record<string, string> = {};
    if (r.chance(0.3)) h.range = this.taint(this.choose(RANGES, HOSTILE_RANGES));
    if (r.chance(0.4)) h.accept = this.taint(this.choose(ACCEPT, HOSTILE_ACCEPT), 0.15);
    for (const name of ['accept-profile', 'content-profile']) {
      if (r.chance(0.15)) h[name] = this.taint(this.choose(['public'], PROFILES));
    }
    if (r.chance(0.8)) {
      h['content-type'] = this.taint(this.choose(CONTENT_TYPES, HOSTILE_CONTENT_TYPES), 0.15);
    }
    return h;
  }

  typedValue(type: ColumnType): unknown {
    const r = this.r;
    const values: Record<ColumnType, () => unknown> = {
      int: () => r.int(10) + 1,
      num: () => r.pick([7.5, 1, 9.9]),
      text: () => r.pick(['x', 'New film', '']),
      array: () => r.pick([['a'], [], ['scifi', 'b c']]),
      json: () => r.pick([{ a: 1 }, [1, 2], null]),
      range: () => r.pick(['[1,2)', 'empty', '(,)']),
      ts: () => '2020-01-01T00:00:00Z',
      tsv: () => 'a b',
    };
    return values[type]();
  }

  jsonValue(depth = 0): unknown {
    const r = this.r;
    const kind = r.int(depth > 2 ? 5 : 8);
    if (kind === 0) return r.chance(0.2) ? 1e20 : r.int(100) - 10;
    if (kind === 1) return this.taint(r.pick(['x', 'Alien', '', '{scifi}', '[1,2)']), 0.5);
    if (kind === 2) return r.pick([null, true, false]);
    if (kind === 3) return r.pick([1.5, -0, 1e308, 2147483648]);
    if (kind === 4) return '{}';
    if (kind === 5) return r.times(0, 3, () => this.jsonValue(depth + 1));
    return Object.fromEntries(r.times(0, 3, () => [this.taint('k'), this.jsonValue(depth + 1)]));
  }

  row(t: TableShape, columns: string[]): Record<string, unknown> {
    const r = this.r;
    return Object.fromEntries(
      columns.map((c) => {
        const type = t.columns[c];
        const typed = type !== undefined && (!this.hostileMode || r.chance(0.5));
        return [c, typed ? this.typedValue(type) : this.jsonValue(1)];
      }),
    );
  }

  body(t: TableShape): string | undefined {
    const r = this.r;
    const kind = r.int(this.hostileMode ? 10 : 6);
    const names = Object.keys(t.columns).filter((c) => c !== 'tsv');
    const columns = () => [
      ...new Set(
        r.times(1, 3, () => (this.hostileMode && r.chance(0.15) ? this.hostile() : r.pick(names))),
      ),
    ];
    if (kind === 0) return undefined;
    if (kind <= 3) return JSON.stringify(this.row(t, columns()));
    if (kind <= 5) {
      const cols = columns();
      return JSON.stringify(r.times(1, 3, () => this.row(t, cols)));
    }
    if (kind === 6) return JSON.stringify(this.jsonValue());
    if (kind === 7) return `${'['.repeat(100)}1${']'.repeat(100)}`;
    if (kind === 8) {
      return `${names.slice(0, 3).join(',')}\n${this.value()},${this.value()},${this.value()}`;
    }
    const garbage = ['{', 'id=1&title=x', "'; DROP TABLE films; --", 'null', '{"a":}', '\u0000'];
    return this.taint(r.pick(garbage), 0.5);
  }
}
