import { bootRestFixture, type RestFixture } from '../fixture';
import { clientFor, failed, ok, pgError, type Client, view } from './supabase-client';

/**
 * The table the write tests own. Each test uses its own id range (or `items` name), so no
 * test depends on another's writes.
 */
const MUTATION_SQL = `
CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL, n int DEFAULT 0, tag text DEFAULT 'none');
GRANT ALL ON notes TO anon, authenticated, service_role;
`;

/** insert / upsert / update / delete / rollback / maxAffected through supabase-js. */
describe('supabase-js mutations', () => {
  let f: RestFixture;
  let db: Client;
  /** The committed rows of `notes` with ids in [from, to], read back in id order. */
  const notes = async (from: number, to: number) =>
    (await db.from('notes').select('*').gte('id', from).lte('id', to).order('id')).data;

  beforeAll(async () => {
    f = await bootRestFixture(MUTATION_SQL);
    db = clientFor(f);
  });
  afterAll(() => f?.platform.close());

  describe('insert', () => {
    it('one row without select(): 201, no body; omitted columns take their DEFAULT', async () => {
      expect(view(await db.from('notes').insert({ id: 1, body: 'one' }))).toEqual(ok(null, 201));
      expect(await notes(1, 1)).toEqual([{ id: 1, body: 'one', n: 0, tag: 'none' }]);
    });

    it('one row with select(): the inserted row in an array', async () => {
      const res = await db.from('notes').insert({ id: 10, body: 'ten', n: 3 }).select();
      expect(view(res)).toEqual(ok([{ id: 10, body: 'ten', n: 3, tag: 'none' }], 201));
    });

    it('many rows, with and without select(), with count', async () => {
      const rows = [
        { id: 20, body: 'a', n: 1 },
        { id: 21, body: 'b', n: 2 },
      ];
      const selected = await db.from('notes').insert(rows).select('id,body');
      expect(view(selected)).toEqual(
        ok(
          [
            { id: 20, body: 'a' },
            { id: 21, body: 'b' },
          ],
          201,
        ),
      );
      const counted = await db.from('notes').insert(
        [
          { id: 22, body: 'c' },
          { id: 23, body: 'd' },
          { id: 24, body: 'e' },
        ],
        { count: 'exact' },
      );
      expect(view(counted)).toEqual(ok(null, 201, 3));
      expect((await notes(20, 24))?.map((r: { id: number }) => r.id)).toEqual([20, 21, 22, 23, 24]);
    });

    it('select().single() returns the inserted row as an object', async () => {
      const res = await db
        .from('notes')
        .insert({ id: 30, body: 'single' })
        .select('id,body')
        .single();
      expect(view(res)).toEqual(ok({ id: 30, body: 'single' }, 201));
    });

    it('select().single() on two inserted rows is PGRST116 and inserts nothing', async () => {
      const res = await db
        .from('notes')
        .insert([
          { id: 31, body: 'x' },
          { id: 32, body: 'y' },
        ])
        .select()
        .single();
      expect(view(res)).toEqual(
        failed(
          406,
          pgError(
            'PGRST116',
            'Cannot coerce the result to a single JSON object',
            'The result contains 2 rows',
          ),
        ),
      );
      expect(await notes(31, 32)).toEqual([]);
    });

    it('bulk keys missing from some objects: NULL by default, DEFAULT with defaultToNull:false', async () => {
      // supabase-js sends ?columns= with the union of the keys; `tag` is in none of them.
      await db.from('notes').insert([
        { id: 40, body: 'a', n: 5 },
        { id: 41, body: 'b' },
      ]);
      const defaulted = await db.from('notes').insert(
        [
          { id: 42, body: 'c', n: 5 },
          { id: 43, body: 'd' },
        ],
        { defaultToNull: false },
      );
      expect(view(defaulted)).toEqual(ok(null, 201));
      expect(await notes(40, 43)).toEqual([
        { id: 40, body: 'a', n: 5, tag: 'none' },
        { id: 41, body: 'b', n: null, tag: 'none' },
        { id: 42, body: 'c', n: 5, tag: 'none' },
        { id: 43, body: 'd', n: 0, tag: 'none' },
      ]);
    });
  });

  describe('upsert', () => {
    it('merges on the primary key: 201 when a row is new, 200 when all were updates', async () => {
      const created = await db.from('notes').upsert({ id: 50, body: 'v1' }).select('id,body');
      expect(view(created)).toEqual(ok([{ id: 50, body: 'v1' }], 201));
      const updated = await db.from('notes').upsert({ id: 50, body: 'v2' }).select('id,body');
      expect(view(updated)).toEqual(ok([{ id: 50, body: 'v2' }], 200));
      const mixed = await db
        .from('notes')
        .upsert([
          { id: 50, body: 'v3' },
          { id: 51, body: 'new' },
        ])
        .select('id,body');
      expect(view(mixed)).toEqual(
        ok(
          [
            { id: 50, body: 'v3' },
            { id: 51, body: 'new' },
          ],
          201,
        ),
      );
    });

    it('merges on another unique column with onConflict', async () => {
      await db.from('items').insert({ name: 'upsert-a', qty: 1, note: 'kept' });
      const res = await db
        .from('items')
        .upsert({ name: 'upsert-a', qty: 50 }, { onConflict: 'name' })
        .select('name,qty,note')
        .single();
      expect(view(res)).toEqual(ok({ name: 'upsert-a', qty: 50, note: 'kept' }, 200));
      const rows = await db.from('items').select('name,qty').like('name', 'upsert-a%');
      expect(view(rows)).toEqual(ok([{ name: 'upsert-a', qty: 50 }]));
    });

    it('ignoreDuplicates keeps the existing row and returns only new ones', async () => {
      await db.from('notes').insert({ id: 60, body: 'original' });
      const res = await db
        .from('notes')
        .upsert(
          [
            { id: 60, body: 'ignored' },
            { id: 61, body: 'added' },
          ],
          { ignoreDuplicates: true },
        )
        .select('id,body');
      expect(view(res)).toEqual(ok([{ id: 61, body: 'added' }], 201));
      expect((await notes(60, 61))?.map((r: { body: string }) => r.body)).toEqual([
        'original',
        'added',
      ]);
    });

    it('upsert with count and no select', async () => {
      const res = await db.from('notes').upsert(
        [
          { id: 62, body: 'a' },
          { id: 63, body: 'b' },
        ],
        { count: 'exact' },
      );
      expect(view(res)).toEqual(ok(null, 201, 2));
    });
  });

  describe('update and delete', () => {
    beforeAll(async () => {
      await db.from('notes').insert(
        [70, 71, 72, 73, 80, 81, 82, 83, 90, 91, 92, 93, 94, 95].map((id) => ({
          id,
          body: `b${id}`,
          n: id,
        })),
      );
    });

    it('update with filters: 204 without select, rows with select, count', async () => {
      const plain = await db.from('notes').update({ tag: 'plain' }).eq('id', 70);
      expect(view(plain)).toEqual(ok(null, 204));
      const selected = await db
        .from('notes')
        .update({ tag: 'sel', n: 0 })
        .in('id', [71, 72])
        .select('id,tag,n')
        .order('id');
      expect(view(selected)).toEqual(
        ok([
          { id: 71, tag: 'sel', n: 0 },
          { id: 72, tag: 'sel', n: 0 },
        ]),
      );
      const counted = await db
        .from('notes')
        .update({ tag: 'cnt' }, { count: 'exact' })
        .gte('id', 70)
        .lte('id', 73)
        .neq('tag', 'sel');
      expect(view(counted)).toEqual(ok(null, 204, 2));
      expect((await notes(70, 73))?.map((r: { tag: string }) => r.tag)).toEqual([
        'cnt',
        'sel',
        'sel',
        'cnt',
      ]);
      const none = await db.from('notes').update({ tag: 'x' }).eq('id', 999).select();
      expect(view(none)).toEqual(ok([]));
    });

    it('delete with filters: 204, with select the deleted rows, count', async () => {
      expect(view(await db.from('notes').delete().eq('id', 80))).toEqual(ok(null, 204));
      const selected = await db.from('notes').delete().in('id', [81, 82]).select('id,body');
      expect(view(selected)).toEqual(
        ok([
          { id: 81, body: 'b81' },
          { id: 82, body: 'b82' },
        ]),
      );
      const counted = await db.from('notes').delete({ count: 'exact' }).gte('id', 80).lte('id', 89);
      expect(view(counted)).toEqual(ok(null, 204, 1));
      expect(await notes(80, 89)).toEqual([]);
    });

    it('update or delete without any filter is refused (400) and changes nothing', async () => {
      const update = await db.from('notes').update({ tag: 'everything' });
      expect(view(update)).toEqual(
        failed(
          400,
          pgError(
            '21000',
            'UPDATE requires a WHERE clause',
            null,
            'Add a filter to the request, for example ?id=eq.1',
          ),
        ),
      );
      const del = await db.from('notes').delete();
      expect(view(del)).toEqual(
        failed(
          400,
          pgError(
            '21000',
            'DELETE requires a WHERE clause',
            null,
            'Add a filter to the request, for example ?id=eq.1',
          ),
        ),
      );
      const { count } = await db
        .from('notes')
        .select('*', { count: 'exact', head: true })
        .eq('tag', 'everything');
      expect(count).toBe(0);
      expect((await notes(90, 92))?.length).toBe(3);
    });

    it('maxAffected (handling=strict): over the limit is PGRST124 and rolls back', async () => {
      // The untyped client is typed for PostgREST 12; maxAffected() is a 13+ method.
      const strict = <T>(builder: T, n: number): T =>
        (builder as unknown as { maxAffected(rows: number): T }).maxAffected(n);
      const over = await strict(
        db.from('notes').update({ tag: 'max' }).gte('id', 93).lte('id', 95),
        2,
      );
      expect(view(over)).toEqual(
        failed(
          400,
          pgError(
            'PGRST124',
            'Query result exceeds max-affected preference constraint',
            'The query affects 3 rows',
          ),
        ),
      );
      expect((await notes(93, 95))?.map((r: { tag: string }) => r.tag)).toEqual([
        'none',
        'none',
        'none',
      ]);
      const within = await strict(
        db.from('notes').update({ tag: 'max' }).gte('id', 93).lte('id', 94).select('id'),
        2,
      );
      expect(view(within)).toEqual(ok([{ id: 93 }, { id: 94 }]));
      const deleteOver = await strict(db.from('notes').delete().gte('id', 93).lte('id', 95), 1);
      expect(view(deleteOver)).toEqual(
        failed(
          400,
          pgError(
            'PGRST124',
            'Query result exceeds max-affected preference constraint',
            'The query affects 3 rows',
          ),
        ),
      );
      expect((await notes(93, 95))?.length).toBe(3);
    });
  });

  it('rollback() answers as if committed but keeps nothing', async () => {
    const inserted = await db
      .from('notes')
      .insert({ id: 100, body: 'gone' })
      .select('id')
      .rollback();
    expect(view(inserted)).toEqual(ok([{ id: 100 }], 201));
    expect(await notes(100, 100)).toEqual([]);
    await db.from('notes').insert({ id: 101, body: 'stays' });
    const updated = await db.from('notes').update({ body: 'changed' }).eq('id', 101).rollback();
    expect(view(updated)).toEqual(ok(null, 204));
    const deleted = await db.from('notes').delete().eq('id', 101).select('body').rollback();
    expect(view(deleted)).toEqual(ok([{ body: 'stays' }]));
    expect(await notes(101, 101)).toEqual([{ id: 101, body: 'stays', n: 0, tag: 'none' }]);
  });
});
