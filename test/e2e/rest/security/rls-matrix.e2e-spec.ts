import { randomUUID } from 'node:crypto';
import { request, type JsonResponse } from '../../../support/http';
import type { TestProject } from '../../../support/platform';
import { bootRestFixture, type RestFixture } from '../fixture';
import {
  type Actor,
  DELETES,
  expectedRows,
  INSERTS,
  NOTES_SQL,
  READS,
  type RlsCase,
  RESEED_SQL,
  UPDATES,
  USER_A,
  USER_B,
} from './rls-cases';
import { projectJwtSecret, projectSql, signUserToken } from './project-tokens';

/**
 * Row Level Security through `/rest/v1` for every kind of caller (rls-cases.ts holds the
 * expectations), and isolation between two projects of one platform.
 */
describe('REST security: RLS matrix and project isolation', () => {
  let f: RestFixture;
  let secretA: string;
  const tokens = {} as Record<Actor, string>;

  beforeAll(async () => {
    // Created after boot, so a failing statement still leaves `f` for afterAll to close.
    f = await bootRestFixture();
    await f.sql(NOTES_SQL);
    secretA = await projectJwtSecret(f.platform, f.project.ref);
    tokens.anon = f.project.anonKey;
    tokens.service = f.project.serviceKey;
    tokens.userA = await signUserToken(secretA, f.project.ref, USER_A);
    tokens.userB = await signUserToken(secretA, f.project.ref, USER_B);
  });
  afterAll(() => f?.platform.close());

  /** Headers as supabase-js sends them: the anon key as apikey, the session (or key) as Bearer. */
  const as = (actor: Actor): Record<string, string> => ({
    apikey: actor === 'service' ? f.project.serviceKey : f.project.anonKey,
    authorization: `Bearer ${tokens[actor]}`,
  });

  const send = (c: RlsCase): Promise<JsonResponse> =>
    request(f.rest, c.method, c.path, {
      headers: { ...as(c.actor), ...(c.prefer ? { prefer: c.prefer } : {}) },
      ...(c.body === undefined ? {} : { body: c.body }),
    });

  const dump = async (rest = f.rest, key = f.project.serviceKey) => {
    const res = await request(rest, 'GET', '/notes?select=id,owner,body,public&order=id', {
      headers: { apikey: key, authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    return res.body as unknown[];
  };

  const check = async (c: RlsCase) => {
    await f.sql(RESEED_SQL);
    const res = await send(c);
    // The summary rides along so that a wrong status shows the whole answer.
    const summary = `${c.method} ${c.path} -> ${res.status} ${res.text}`;
    expect({ status: res.status, summary }).toEqual({ status: c.status, summary });
    if (c.code !== undefined) {
      expect(res.body).toMatchObject({ code: c.code, message: expect.any(String) });
    }
    if (c.ids !== undefined) expect((res.body as { id: number }[]).map((r) => r.id)).toEqual(c.ids);
    if (c.returns !== undefined) expect(res.body).toMatchObject(c.returns);
    if (c.contentRange !== undefined) {
      expect(res.headers.get('content-range')).toBe(c.contentRange);
    }
    if (c.effect !== undefined) expect(await dump()).toEqual(expectedRows(c.effect));
  };

  const title = '$actor: $what ($method $path)';
  describe('read', () => it.each(READS)(title, (c) => check(c)));
  describe('insert', () => it.each(INSERTS)(title, (c) => check(c)));
  describe('update', () => it.each(UPDATES)(title, (c) => check(c)));
  describe('delete', () => it.each(DELETES)(title, (c) => check(c)));

  describe('tokens that must not become a role', () => {
    const cases: Array<[string, () => Promise<string>]> = [
      ['an expired user token', () => signUserToken(secretA, f.project.ref, USER_A, {}, -120)],
      [
        'a token claiming role postgres',
        () => signUserToken(secretA, f.project.ref, USER_A, { role: 'postgres' }),
      ],
      [
        'a token signed with another secret',
        () => signUserToken('not the project secret at all, 32+ chars', f.project.ref, USER_A),
      ],
      [
        'a token without ref',
        () => signUserToken(secretA, f.project.ref, USER_A, { ref: undefined }),
      ],
    ];
    it.each(cases)('%s is a 401, never anon', async (_what, mint) => {
      await f.sql(RESEED_SQL);
      const res = await request(f.rest, 'GET', '/notes?select=id', {
        headers: { apikey: f.project.anonKey, authorization: `Bearer ${await mint()}` },
      });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    });
  });

  describe('across projects', () => {
    let b: TestProject;
    let secretB: string;
    let restB: string;
    const B_SECRET_TEXT = 'project b secret';

    beforeAll(async () => {
      const { token } = await f.platform.newAccount();
      b = await f.platform.newProject(token, 'project b');
      secretB = await projectJwtSecret(f.platform, b.ref);
      restB = `${f.platform.data}/projects/${b.ref}/rest/v1`;
      await projectSql(
        f.platform,
        token,
        b,
        `${NOTES_SQL}
         INSERT INTO notes (id, owner, body, public) VALUES
           (1, '${USER_A}', '${B_SECRET_TEXT} private', false), (2, '${USER_B}', '${B_SECRET_TEXT}', true);`,
      );
      await f.sql(RESEED_SQL);
    });

    const bIntact = async () =>
      expect((await dump(restB, b.serviceKey)).map((r) => (r as { id: number }).id)).toEqual([
        1, 2,
      ]);

    /** Credentials of project A (or forged for B with A's secret) against B's path. */
    const rejected: Array<[string, () => Promise<Record<string, string>>]> = [
      ["A's anon key", async () => as('anon')],
      ["A's service key", async () => as('service')],
      ["A's service key as apikey only", async () => ({ apikey: f.project.serviceKey })],
      [
        "A's user token with B's anon apikey",
        async () => ({
          apikey: b.anonKey,
          authorization: `Bearer ${tokens.userA}`,
        }),
      ],
      ["A's user token alone", async () => ({ authorization: `Bearer ${tokens.userA}` })],
      [
        "a token naming B signed with A's secret",
        async () => ({
          apikey: b.anonKey,
          authorization: `Bearer ${await signUserToken(secretA, b.ref, USER_A)}`,
        }),
      ],
    ];

    it.each(rejected)("%s cannot read B's rows (401)", async (_what, headers) => {
      const res = await request(restB, 'GET', '/notes?select=*', { headers: await headers() });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      expect(res.text).not.toContain(B_SECRET_TEXT);
    });

    it.each(rejected)("%s cannot write B's rows (401)", async (_what, headers) => {
      for (const [method, path, body] of [
        ['POST', '/notes', { owner: USER_A, body: 'planted' }],
        ['PATCH', '/notes?id=gt.0', { body: 'defaced' }],
        ['DELETE', '/notes?id=gt.0', undefined],
      ] as const) {
        const res = await request(restB, method, path, {
          headers: { ...(await headers()), prefer: 'return=representation' },
          ...(body ? { body } : {}),
        });
        expect(`${method} ${res.status}`).toBe(`${method} 401`);
        expect(res.text).not.toContain(B_SECRET_TEXT);
      }
      await bIntact();
    });

    it("B's own keys still work on B's path (the rejections above were about A)", async () => {
      const res = await request(restB, 'GET', '/notes?select=id&order=id', {
        headers: { apikey: b.anonKey },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ id: 2 }]);
    });

    it("a token naming B signed with A's secret is refused on A's path too", async () => {
      const forged = await signUserToken(secretA, b.ref, USER_A);
      const res = await request(f.rest, 'GET', '/notes?select=id', {
        headers: { apikey: f.project.anonKey, authorization: `Bearer ${forged}` },
      });
      expect(res.status).toBe(401);
    });

    describe('key-only URL ({data}/rest/v1): each key reaches only its own project', () => {
      type Headers = () => Promise<Record<string, string>>;
      /** `from`: whose rows the answer must hold (B's all say B_SECRET_TEXT, A's never do). */
      const cases: Array<{ what: string; headers: Headers; from?: 'A' | 'B'; ids?: number[] }> = [
        {
          what: "A's anon key",
          headers: async () => ({ apikey: f.project.anonKey }),
          from: 'A',
          ids: [2, 4],
        },
        {
          what: "A's service key",
          headers: async () => as('service'),
          from: 'A',
          ids: [1, 2, 3, 4],
        },
        { what: "A's user token", headers: async () => as('userA'), from: 'A', ids: [1, 2, 4] },
        { what: "B's anon key", headers: async () => ({ apikey: b.anonKey }), from: 'B', ids: [2] },
        {
          what: "B's service key",
          headers: async () => ({ apikey: b.serviceKey }),
          from: 'B',
          ids: [1, 2],
        },
        {
          what: "B's user token",
          headers: async () => ({
            apikey: b.anonKey,
            authorization: `Bearer ${await signUserToken(secretB, b.ref, USER_A)}`,
          }),
          from: 'B',
          ids: [1, 2],
        },
        {
          what: "B's anon apikey with A's user token (401)",
          headers: async () => ({ apikey: b.anonKey, authorization: `Bearer ${tokens.userA}` }),
        },
        {
          what: "A's anon apikey with B's service key as Bearer (401)",
          headers: async () => ({
            apikey: f.project.anonKey,
            authorization: `Bearer ${b.serviceKey}`,
          }),
        },
        {
          what: "a token naming B signed with A's secret (401)",
          headers: async () => ({
            authorization: `Bearer ${await signUserToken(secretA, b.ref, USER_A)}`,
          }),
        },
      ];

      it.each(cases)('$what', async ({ headers, from, ids }) => {
        const res = await request(`${f.platform.data}/rest/v1`, 'GET', '/notes?order=id', {
          headers: await headers(),
        });
        if (from === undefined) {
          expect(res.status).toBe(401);
          expect(res.text).not.toMatch(/ (private|public)|project b secret/);
          return;
        }
        expect(res.status).toBe(200);
        const rows = res.body as { id: number; body: string }[];
        expect(rows.map((r) => r.id)).toEqual(ids);
        for (const row of rows) expect(row.body.includes(B_SECRET_TEXT)).toBe(from === 'B');
      });
    });

    it('unknown users see only public rows; B is still intact', async () => {
      const stranger = await signUserToken(secretA, f.project.ref, randomUUID());
      const res = await request(f.rest, 'GET', '/notes?select=id&order=id', {
        headers: { apikey: f.project.anonKey, authorization: `Bearer ${stranger}` },
      });
      expect(res.body).toEqual([{ id: 2 }, { id: 4 }]);
      await bIntact();
    });
  });
});
