/**
 * The RLS expectations of `notes`, kept as data: who may see and change which rows, and what
 * each write must leave behind in the table (checked with the service key afterwards).
 */
export const USER_A = '0000000a-0000-4000-8000-00000000000a';
export const USER_B = '0000000b-0000-4000-8000-00000000000b';

export type Actor = 'anon' | 'userA' | 'userB' | 'service';

export interface Note {
  id: number;
  owner: string;
  body: string;
  public: boolean;
}

/** Rows 1-4 before every case; inserted rows take ids from 101. */
export const SEED: Note[] = [
  { id: 1, owner: USER_A, body: 'a private', public: false },
  { id: 2, owner: USER_A, body: 'a public', public: true },
  { id: 3, owner: USER_B, body: 'b private', public: false },
  { id: 4, owner: USER_B, body: 'b public', public: true },
];

export const NOTES_SQL = `
CREATE TABLE notes (
  id serial PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text,
  public boolean DEFAULT false
);
ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY notes_select ON notes FOR SELECT USING (public OR owner = auth.uid());
CREATE POLICY notes_insert ON notes FOR INSERT WITH CHECK (owner = auth.uid());
CREATE POLICY notes_update ON notes FOR UPDATE
  USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
CREATE POLICY notes_delete ON notes FOR DELETE USING (owner = auth.uid());
-- The default privileges of public give anon everything: narrow it to reading.
REVOKE ALL ON notes FROM anon;
GRANT SELECT ON notes TO anon;
GRANT ALL ON notes TO authenticated, service_role;
GRANT USAGE, SELECT ON SEQUENCE notes_id_seq TO authenticated, service_role;
`;

export const RESEED_SQL = `
TRUNCATE notes;
INSERT INTO notes (id, owner, body, public) VALUES ${SEED.map(
  (n) => `(${n.id}, '${n.owner}', '${n.body}', ${n.public})`,
).join(', ')};
SELECT setval('notes_id_seq', 100);
`;

/** What a write must have done to the seeded table. */
export type Effect =
  | { none: true }
  | { insert: Omit<Note, 'id'>[] }
  | { update: number[]; set: Partial<Note> }
  | { delete: number[] };

export interface RlsCase {
  actor: Actor;
  what: string;
  method: 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE';
  /** Path and query under `/rest/v1`. */
  path: string;
  body?: unknown;
  prefer?: string;
  status: number;
  /** PostgREST error code of an error response. */
  code?: string;
  /** Reads: the ids in the body, in order. */
  ids?: number[];
  /** Writes with representation: the rows returned (matched as subsets). */
  returns?: Partial<Note>[];
  contentRange?: string;
  effect?: Effect;
}

const LIST = '/notes?select=id&order=id';
const REP = 'return=representation';
const NONE = { none: true } as const;
const newNote = (owner: string, body: string, isPublic = false) => ({
  owner,
  body,
  public: isPublic,
});

// prettier-ignore
export const READS: RlsCase[] = [
  { actor: 'anon', what: 'sees public rows', method: 'GET', path: LIST, status: 200, ids: [2, 4] },
  { actor: 'userA', what: 'sees own and public', method: 'GET', path: LIST, status: 200, ids: [1, 2, 4] },
  { actor: 'userB', what: 'sees own and public', method: 'GET', path: LIST, status: 200, ids: [2, 3, 4] },
  { actor: 'service', what: 'sees all (BYPASSRLS)', method: 'GET', path: LIST, status: 200, ids: [1, 2, 3, 4] },
  { actor: 'userA', what: "asks for B's private row by id", method: 'GET', path: '/notes?select=id&id=eq.3', status: 200, ids: [] },
  { actor: 'anon', what: 'filters by owner', method: 'GET', path: `/notes?select=id&owner=eq.${USER_A}`, status: 200, ids: [2] },
  { actor: 'userA', what: "filters by B's ownership", method: 'GET', path: `/notes?select=id&owner=eq.${USER_B}`, status: 200, ids: [4] },
  { actor: 'userA', what: 'counts only visible rows', method: 'GET', path: LIST, prefer: 'count=exact', status: 200, ids: [1, 2, 4], contentRange: '0-2/3' },
  { actor: 'anon', what: 'counts only visible rows (HEAD)', method: 'HEAD', path: LIST, prefer: 'count=exact', status: 200, contentRange: '0-1/2' },
  { actor: 'userB', what: 'cannot see private rows through or=', method: 'GET', path: '/notes?select=id&or=(public.eq.false,id.eq.1)&order=id', status: 200, ids: [3] },
];

// prettier-ignore
export const INSERTS: RlsCase[] = [
  { actor: 'anon', what: 'insert (no privilege)', method: 'POST', path: '/notes', body: { body: 'n' }, prefer: REP, status: 401, code: '42501', effect: NONE },
  { actor: 'anon', what: "insert claiming A's ownership", method: 'POST', path: '/notes', body: { owner: USER_A, body: 'n' }, prefer: REP, status: 401, code: '42501', effect: NONE },
  { actor: 'userA', what: 'insert own (owner defaults to auth.uid())', method: 'POST', path: '/notes', body: { body: 'new a' }, prefer: REP, status: 201, returns: [newNote(USER_A, 'new a')], effect: { insert: [newNote(USER_A, 'new a')] } },
  { actor: 'userA', what: 'insert own (explicit owner)', method: 'POST', path: '/notes', body: { owner: USER_A, body: 'new a', public: true }, status: 201, effect: { insert: [newNote(USER_A, 'new a', true)] } },
  { actor: 'userA', what: 'insert claiming B', method: 'POST', path: '/notes', body: { owner: USER_B, body: 'forged' }, prefer: REP, status: 403, code: '42501', effect: NONE },
  { actor: 'userB', what: 'insert claiming A', method: 'POST', path: '/notes', body: { owner: USER_A, body: 'forged' }, status: 403, code: '42501', effect: NONE },
  { actor: 'userA', what: 'bulk insert, one row claiming B (all or nothing)', method: 'POST', path: '/notes', body: [{ owner: USER_A, body: 'ok' }, { owner: USER_B, body: 'forged' }], status: 403, code: '42501', effect: NONE },
  { actor: 'userA', what: "upsert over B's row", method: 'POST', path: '/notes', body: { id: 3, owner: USER_A, body: 'hijack' }, prefer: 'resolution=merge-duplicates', status: 403, code: '42501', effect: NONE },
  { actor: 'userA', what: 'upsert over own row', method: 'POST', path: '/notes', body: { id: 1, owner: USER_A, body: 'merged' }, prefer: `resolution=merge-duplicates,${REP}`, status: 200, returns: [{ id: 1, body: 'merged' }], effect: { update: [1], set: { body: 'merged' } } },
  { actor: 'service', what: 'insert for B', method: 'POST', path: '/notes', body: { owner: USER_B, body: 'by service' }, prefer: REP, status: 201, returns: [newNote(USER_B, 'by service')], effect: { insert: [newNote(USER_B, 'by service')] } },
  { actor: 'service', what: 'insert without owner (no sub: NOT NULL fails)', method: 'POST', path: '/notes', body: { body: 'orphan' }, status: 400, code: '23502', effect: NONE },
];

// prettier-ignore
export const UPDATES: RlsCase[] = [
  { actor: 'anon', what: 'update a public row (no privilege)', method: 'PATCH', path: '/notes?id=eq.2', body: { body: 'x' }, prefer: REP, status: 401, code: '42501', effect: NONE },
  { actor: 'userA', what: 'update own', method: 'PATCH', path: '/notes?id=eq.1', body: { body: 'edited' }, prefer: REP, status: 200, returns: [{ id: 1, body: 'edited' }], effect: { update: [1], set: { body: 'edited' } } },
  { actor: 'userA', what: "update B's private row: 0 rows", method: 'PATCH', path: '/notes?id=eq.3', body: { body: 'x' }, prefer: REP, status: 200, returns: [], effect: NONE },
  { actor: 'userA', what: "update B's public row: 0 rows", method: 'PATCH', path: '/notes?id=eq.4', body: { body: 'x' }, prefer: REP, status: 200, returns: [], effect: NONE },
  { actor: 'userB', what: "update A's row, minimal: 204", method: 'PATCH', path: '/notes?id=eq.1', body: { body: 'x' }, status: 204, effect: NONE },
  { actor: 'userA', what: 'update all public rows: only own', method: 'PATCH', path: '/notes?public=eq.true', body: { body: 'mine' }, prefer: REP, status: 200, returns: [{ id: 2 }], effect: { update: [2], set: { body: 'mine' } } },
  { actor: 'userA', what: 'give own row to B (WITH CHECK)', method: 'PATCH', path: '/notes?id=eq.1', body: { owner: USER_B }, prefer: REP, status: 403, code: '42501', effect: NONE },
  { actor: 'service', what: "update B's row", method: 'PATCH', path: '/notes?id=eq.3', body: { body: 'svc' }, prefer: REP, status: 200, returns: [{ id: 3, body: 'svc' }], effect: { update: [3], set: { body: 'svc' } } },
];

// prettier-ignore
export const DELETES: RlsCase[] = [
  { actor: 'anon', what: 'delete a public row (no privilege)', method: 'DELETE', path: '/notes?id=eq.2', status: 401, code: '42501', effect: NONE },
  { actor: 'userA', what: 'delete own', method: 'DELETE', path: '/notes?id=eq.1', status: 204, effect: { delete: [1] } },
  { actor: 'userA', what: "delete B's private row: 0 rows", method: 'DELETE', path: '/notes?id=eq.3', status: 204, effect: NONE },
  { actor: 'userA', what: "delete B's public row: 0 rows", method: 'DELETE', path: '/notes?id=eq.4', prefer: REP, status: 200, returns: [], effect: NONE },
  { actor: 'userB', what: 'delete all public rows: only own', method: 'DELETE', path: '/notes?public=eq.true', prefer: REP, status: 200, returns: [{ id: 4 }], effect: { delete: [4] } },
  { actor: 'service', what: "delete A's row", method: 'DELETE', path: '/notes?id=eq.1', status: 204, effect: { delete: [1] } },
];

/** The table as the service key should see it after `effect`, ordered by id. */
export function expectedRows(effect: Effect): Array<Note | (Omit<Note, 'id'> & { id: unknown })> {
  if ('insert' in effect) {
    return [...SEED, ...effect.insert.map((n) => ({ ...n, id: expect.any(Number) as unknown }))];
  }
  if ('update' in effect) {
    return SEED.map((n) => (effect.update.includes(n.id) ? { ...n, ...effect.set } : n));
  }
  if ('delete' in effect) return SEED.filter((n) => !effect.delete.includes(n.id));
  return SEED;
}
