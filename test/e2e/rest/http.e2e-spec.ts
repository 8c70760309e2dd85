import { request } from '../../support/http';
import { bootRestFixture, type RestFixture } from './fixture';

/** PostgREST's HTTP surface over real HTTP: statuses, headers, media types, Prefer. */
describe('REST API over HTTP', () => {
  let f: RestFixture;
  beforeAll(async () => {
    f = await bootRestFixture(`
      CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL DEFAULT 0, label text);
      INSERT INTO counters VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c');
      GRANT ALL ON counters TO anon, authenticated, service_role;
      CREATE FUNCTION titles() RETURNS SETOF text LANGUAGE sql STABLE AS 'SELECT title FROM films ORDER BY id';
      CREATE FUNCTION teapot() RETURNS int LANGUAGE plpgsql AS $$
        BEGIN PERFORM set_config('response.status', '418', true);
              PERFORM set_config('response.headers', '[{"X-Brew":"earl grey"}]', true);
              RETURN 1; END $$;
    `);
  });
  afterAll(() => f?.platform.close());

  const call = (
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: unknown; raw?: string; key?: string } = {},
  ) =>
    request(f.rest, method, path, {
      token: options.key ?? f.project.serviceKey,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.raw === undefined ? {} : { raw: options.raw }),
    });
  const count = async (table: string) =>
    Number(
      (await call('HEAD', `/${table}`, { headers: { prefer: 'count=exact' } })).headers
        .get('content-range')!
        .split('/')[1],
    );

  describe('reads', () => {
    it('answers a JSON array with Content-Range, and no count unless asked', async () => {
      const res = await call('GET', '/films?select=id&order=id&limit=2&offset=1');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('content-range')).toBe('1-2/*');
      expect(res.body).toEqual([{ id: 2 }, { id: 3 }]);
    });

    it('counts on request: 206 for a partial page, 200 for all, 416 past the end', async () => {
      const partial = await call('GET', '/films?select=id&limit=2', {
        headers: { prefer: 'count=exact' },
      });
      expect([partial.status, partial.headers.get('content-range')]).toEqual([206, '0-1/6']);
      expect(partial.headers.get('preference-applied')).toBe('count=exact');
      const all = await call('GET', '/films?select=id', { headers: { prefer: 'count=exact' } });
      expect([all.status, all.headers.get('content-range')]).toEqual([200, '0-5/6']);
      const past = await call('GET', '/films?offset=30', { headers: { prefer: 'count=exact' } });
      expect(past.status).toBe(416);
      expect(past.body).toMatchObject({
        code: 'PGRST103',
        details: 'An offset of 30 was requested, but there are only 6 rows.',
      });
      const planned = await call('GET', '/films?select=id', {
        headers: { prefer: 'count=planned' },
      });
      expect(planned.headers.get('content-range')).toMatch(/^0-5\/\d+$/);
    });

    it('honours the Range header on GET, intersected with limit', async () => {
      const res = await call('GET', '/films?select=id&order=id', { headers: { range: '1-3' } });
      expect(res.body).toEqual([{ id: 2 }, { id: 3 }, { id: 4 }]);
      expect(res.headers.get('content-range')).toBe('1-3/*');
      const both = await call('GET', '/films?select=id&order=id&limit=2', {
        headers: { range: '1-3' },
      });
      // limit=2 is rows 0-1; intersected with 1-3 that leaves row 1.
      expect(both.body).toEqual([{ id: 2 }]);
    });

    it('answers HEAD with headers and no body', async () => {
      const res = await call('HEAD', '/films', { headers: { prefer: 'count=exact' } });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(res.headers.get('content-range')).toBe('0-5/6');
    });

    it('returns one object for vnd.pgrst.object, else 406 PGRST116', async () => {
      const accept = { accept: 'application/vnd.pgrst.object+json' };
      const one = await call('GET', '/films?select=id,title&id=eq.1', { headers: accept });
      expect(one.status).toBe(200);
      expect(one.headers.get('content-type')).toBe(
        'application/vnd.pgrst.object+json; charset=utf-8',
      );
      expect(one.body).toEqual({ id: 1, title: 'Alien' });
      const many = await call('GET', '/films?id=lt.3', { headers: accept });
      expect(many.status).toBe(406);
      expect(many.body).toEqual({
        code: 'PGRST116',
        details: 'The result contains 2 rows',
        hint: null,
        message: 'Cannot coerce the result to a single JSON object',
        error: 'Cannot coerce the result to a single JSON object',
      });
    });

    it('writes CSV, and strips nulls when asked', async () => {
      const csv = await call('GET', '/directors?select=id,last_name&order=id', {
        headers: { accept: 'text/csv' },
      });
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(csv.text).toBe('id,last_name\n1,Scott\n2,Coppola\n3,Campion');
      const stripped = await call('GET', '/films?select=id,year&id=eq.6', {
        headers: { accept: 'application/vnd.pgrst.array+json;nulls=stripped' },
      });
      expect(stripped.body).toEqual([{ id: 6 }]);
      const refused = await call('GET', '/films', { headers: { accept: 'application/xml' } });
      expect(refused.status).toBe(406);
      expect(refused.body).toMatchObject({ code: 'PGRST107' });
    });

    it('names the unknown table with a hint, and serves a table created a moment ago', async () => {
      const missing = await call('GET', '/film');
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({
        code: 'PGRST205',
        message: "Could not find the table 'public.film' in the schema cache",
        hint: "Perhaps you meant the table 'public.films'",
      });
      expect((await call('GET', '/fresh_table')).status).toBe(404);
      await f.sql(
        'CREATE TABLE fresh_table (id int); INSERT INTO fresh_table VALUES (42); GRANT SELECT ON fresh_table TO service_role;',
      );
      const fresh = await call('GET', '/fresh_table');
      expect([fresh.status, fresh.body]).toEqual([200, [{ id: 42 }]]);
      await f.sql("ALTER TABLE fresh_table ADD COLUMN label text DEFAULT 'new'");
      expect((await call('GET', '/fresh_table?select=label')).body).toEqual([{ label: 'new' }]);
    });

    it('serves the key-only URL form, taking the project from the apikey', async () => {
      const res = await request(f.platform.data, 'GET', '/rest/v1/directors?select=id&id=eq.1', {
        headers: { apikey: f.project.anonKey },
      });
      expect([res.status, res.body]).toEqual([200, [{ id: 1 }]]);
    });

    it('answers a bad key with the four PostgREST keys too', async () => {
      const res = await call('GET', '/films', { key: `${f.project.anonKey}x` });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ details: null, hint: null, message: expect.any(String) });
      expect(typeof res.body.code).toBe('string');
      expect(typeof res.body.error).toBe('string');
    });

    it('refuses schemas that are not exposed', async () => {
      for (const schema of ['auth', 'storage', '_platform', 'nope']) {
        const res = await call('GET', '/users', { headers: { 'accept-profile': schema } });
        expect(res.status).toBe(406);
        expect(res.body).toMatchObject({
          code: 'PGRST106',
          message: `Invalid schema: ${schema}`,
          hint: 'Only the following schemas are exposed: public',
        });
      }
    });
  });

  describe('writes', () => {
    it('inserts with return=minimal (201, empty body), representation and headers-only', async () => {
      const minimal = await call('POST', '/counters', { body: { id: 10, n: 1 } });
      expect([minimal.status, minimal.text, minimal.headers.get('content-range')]).toEqual([
        201,
        '',
        '*/*',
      ]);
      const rep = await call('POST', '/counters?select=id,n,label', {
        body: [
          { id: 11, n: 2 },
          { id: 12, n: 3 },
        ],
        headers: { prefer: 'return=representation, count=exact' },
      });
      expect(rep.status).toBe(201);
      expect(rep.body).toEqual([
        { id: 11, n: 2, label: null },
        { id: 12, n: 3, label: null },
      ]);
      expect(rep.headers.get('content-range')).toBe('*/2');
      expect(rep.headers.get('preference-applied')).toBe('return=representation, count=exact');
      const loc = await call('POST', '/counters', {
        body: { id: 13 },
        headers: { prefer: 'return=headers-only' },
      });
      expect([loc.status, loc.headers.get('location')]).toEqual([201, '/counters?id=eq.13']);
    });

    it('upserts: 201 when a row is new, 200 when every row already existed', async () => {
      const prefer = { prefer: 'resolution=merge-duplicates, return=representation' };
      const fresh = await call('POST', '/counters', { body: { id: 20, n: 1 }, headers: prefer });
      expect(fresh.status).toBe(201);
      const again = await call('POST', '/counters', { body: { id: 20, n: 5 }, headers: prefer });
      expect([again.status, again.body]).toEqual([200, [{ id: 20, n: 5, label: null }]]);
      const ignored = await call('POST', '/counters', {
        body: { id: 20, n: 99 },
        headers: { prefer: 'resolution=ignore-duplicates, return=representation' },
      });
      expect([ignored.status, ignored.body]).toEqual([201, []]);
      const byName = await call('POST', '/items?on_conflict=name', {
        body: { name: 'bolt', qty: 1 },
        headers: { prefer: 'resolution=merge-duplicates' },
      });
      expect(byName.status).toBe(201);
    });

    it('upserts one row with PUT by primary key, as PostgREST', async () => {
      const rep = { prefer: 'return=representation' };
      const created = await call('PUT', '/counters?id=eq.80', {
        body: { id: 80, n: 1 },
        headers: rep,
      });
      expect([created.status, created.body]).toEqual([201, [{ id: 80, n: 1, label: null }]]);
      const updated = await call('PUT', '/counters?id=eq.80', {
        body: { id: 80, n: 2 },
        headers: rep,
      });
      expect([updated.status, updated.body]).toEqual([200, [{ id: 80, n: 2, label: null }]]);
      const minimal = await call('PUT', '/counters?id=eq.80', { body: { id: 80, n: 3 } });
      expect([minimal.status, minimal.text]).toEqual([204, '']);
      expect((await call('GET', '/counters?id=eq.80&select=n')).body).toEqual([{ n: 3 }]);
      const notKey = await call('PUT', '/counters?n=eq.3', { body: { id: 80 } });
      expect([notKey.status, notKey.body.code]).toEqual([405, 'PGRST105']);
      const mismatch = await call('PUT', '/counters?id=eq.81', { body: { id: 82 } });
      expect([mismatch.status, mismatch.body.code]).toEqual([400, 'PGRST115']);
      const limited = await call('PUT', '/counters?id=eq.80&limit=1', { body: { id: 80 } });
      expect([limited.status, limited.body.code]).toEqual([400, 'PGRST114']);
    });

    it('embeds related rows in the representation of a write', async () => {
      const res = await call('POST', '/reviews?select=stars,films(title,directors(last_name))', {
        body: { film_id: 2, stars: 4, body: 'embedded' },
        headers: { prefer: 'return=representation' },
      });
      expect([res.status, res.body]).toEqual([
        201,
        [{ stars: 4, films: { title: 'Blade Runner', directors: { last_name: 'Scott' } } }],
      ]);
      const patched = await call('PATCH', '/reviews?body=eq.embedded&select=stars,films(title)', {
        body: { stars: 3 },
        headers: { prefer: 'return=representation' },
      });
      expect(patched.body).toEqual([{ stars: 3, films: { title: 'Blade Runner' } }]);
    });

    it('fills absent keys with the column default under missing=default', async () => {
      const res = await call('POST', '/counters?columns=id,n,label', {
        body: [
          { id: 30, label: 'x' },
          { id: 31, n: 4 },
        ],
        headers: { prefer: 'missing=default, return=representation' },
      });
      expect(res.body).toEqual([
        { id: 30, n: 0, label: 'x' },
        { id: 31, n: 4, label: null },
      ]);
    });

    it('updates and deletes: 204 minimal, 200 with representation, 400 without a filter', async () => {
      await call('POST', '/counters', { body: [{ id: 40 }, { id: 41 }] });
      const patch = await call('PATCH', '/counters?id=eq.40', { body: { n: 7 } });
      expect([patch.status, patch.text, patch.headers.get('content-range')]).toEqual([
        204,
        '',
        '0-0/*',
      ]);
      const rep = await call('PATCH', '/counters?id=in.(40,41)&order=id', {
        body: { label: 'z' },
        headers: { prefer: 'return=representation' },
      });
      expect([rep.status, rep.body]).toEqual([
        200,
        [
          { id: 40, n: 7, label: 'z' },
          { id: 41, n: 0, label: 'z' },
        ],
      ]);
      for (const method of ['PATCH', 'DELETE']) {
        const unfiltered = await call(method, '/counters', { body: { n: 1 } });
        expect(unfiltered.status).toBe(400);
        expect(unfiltered.body).toMatchObject({ code: '21000' });
      }
      const del = await call('DELETE', '/counters?id=eq.41', {
        headers: { prefer: 'count=exact' },
      });
      expect([del.status, del.headers.get('content-range')]).toEqual([204, '*/1']);
      expect((await call('GET', '/counters?id=eq.41')).body).toEqual([]);
    });

    it('rolls back on tx=rollback, on a failed singular check and on max-affected', async () => {
      const before = await count('counters');
      const rolled = await call('POST', '/counters', {
        body: { id: 50 },
        headers: { prefer: 'tx=rollback, return=representation' },
      });
      expect([rolled.status, rolled.headers.get('preference-applied')]).toEqual([
        201,
        'return=representation, tx=rollback',
      ]);
      const single = await call('POST', '/counters', {
        body: [{ id: 51 }, { id: 52 }],
        headers: { accept: 'application/vnd.pgrst.object+json', prefer: 'return=representation' },
      });
      expect([single.status, single.body.code]).toEqual([406, 'PGRST116']);
      const capped = await call('PATCH', '/counters?id=lte.3', {
        body: { label: 'capped' },
        headers: { prefer: 'handling=strict, max-affected=2' },
      });
      expect(capped.status).toBe(400);
      expect(capped.body).toMatchObject({ code: 'PGRST124', details: 'The query affects 3 rows' });
      expect(await count('counters')).toBe(before);
      expect((await call('GET', '/counters?label=eq.capped')).body).toEqual([]);
    });

    it('maps constraint and input errors to PostgREST statuses', async () => {
      const dup = await call('POST', '/counters', { body: { id: 1 } });
      expect([dup.status, dup.body.code]).toEqual([409, '23505']);
      const fk = await call('POST', '/reviews', { body: { film_id: 999, stars: 3 } });
      expect([fk.status, fk.body.code]).toEqual([409, '23503']);
      const bad = await call('GET', '/counters?id=eq.abc');
      expect([bad.status, bad.body.code]).toEqual([400, '22P02']);
      const check = await call('POST', '/reviews', { body: { film_id: 1, stars: 9 } });
      expect([check.status, check.body.code]).toEqual([400, '23514']);
      const unknown = await call('POST', '/counters', { body: { id: 60, nope: 1 } });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({
        code: 'PGRST204',
        message: "Could not find the 'nope' column of 'counters' in the schema cache",
      });
      const keys = await call('POST', '/counters', { body: [{ id: 61 }, { n: 1 }] });
      expect(keys.body).toMatchObject({ code: 'PGRST102', message: 'All object keys must match' });
      const json = await call('POST', '/counters', { raw: '{"id":' });
      expect(json.body).toMatchObject({ code: 'PGRST102', message: 'Empty or invalid json' });
      const type = await call('POST', '/counters', {
        raw: '<x/>',
        headers: { 'content-type': 'application/xml' },
      });
      expect(type.body).toMatchObject({
        code: 'PGRST102',
        message: 'Content-Type not acceptable: application/xml',
      });
    });

    it('accepts CSV and form bodies', async () => {
      const csv = await call('POST', '/counters', {
        raw: 'id,n,label\n70,1,"with, comma"\n71,2,NULL',
        headers: { 'content-type': 'text/csv', prefer: 'return=representation' },
      });
      expect(csv.body).toEqual([
        { id: 70, n: 1, label: 'with, comma' },
        { id: 71, n: 2, label: null },
      ]);
      const form = await call('POST', '/counters', {
        raw: 'id=72&label=form+value',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          prefer: 'return=representation',
        },
      });
      expect(form.body).toEqual([{ id: 72, n: 0, label: 'form value' }]);
    });
  });

  describe('rpc and the root', () => {
    it('calls functions by POST and GET, and lets SQL set status and headers', async () => {
      expect((await call('POST', '/rpc/add', { body: { a: 2, b: 3 } })).body).toBe(5);
      expect((await call('GET', '/rpc/add?a=2&b=3')).body).toBe(5);
      const touched = await call('POST', '/rpc/touch_item', { body: { item_name: 'none' } });
      expect([touched.status, touched.text]).toEqual([204, '']);
      const readOnly = await call('GET', '/rpc/touch_item?item_name=none');
      expect([readOnly.status, readOnly.body.code]).toEqual([405, '25006']);
      const teapot = await call('POST', '/rpc/teapot', { body: {} });
      expect([teapot.status, teapot.headers.get('x-brew'), teapot.body]).toEqual([
        418,
        'earl grey',
        1,
      ]);
      const missing = await call('POST', '/rpc/addd', { body: { a: 1 } });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({
        code: 'PGRST202',
        hint: 'Perhaps you meant to call the function public.add',
      });
    });

    it('pages a set of scalars with limit and offset', async () => {
      const res = await call('GET', '/rpc/titles?limit=2&offset=1');
      expect([res.status, res.body, res.headers.get('content-range')]).toEqual([
        200,
        ['Blade Runner', 'Lost in Translation'],
        '1-2/*',
      ]);
    });

    it('serves the OpenAPI document to the service key only', async () => {
      const doc = await call('GET', '/');
      expect(doc.status).toBe(200);
      expect(doc.headers.get('content-type')).toBe('application/openapi+json; charset=utf-8');
      expect(doc.body).toMatchObject({ swagger: '2.0' });
      expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/films', '/rpc/add']));
      expect(doc.body.definitions.films.properties.title).toMatchObject({
        type: 'string',
        format: 'text',
      });
      const anon = await call('GET', '/', { key: f.project.anonKey });
      expect(anon.status).toBe(401);
    });

    it('rejects deeper paths and unsupported methods', async () => {
      expect((await call('GET', '/films/1')).body).toMatchObject({ code: 'PGRST125' });
      expect((await call('PUT', '/rpc/add', { body: {} })).body).toMatchObject({
        code: 'PGRST101',
      });
    });
  });
});
