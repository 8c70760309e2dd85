import { request, waitFor } from '../../support/http';
import { bootRestFixture, type RestFixture } from './fixture';

/** The per-project row cap and the statement timeout, the REST API's two safety limits. */
describe('REST limits', () => {
  let f: RestFixture;
  beforeAll(async () => {
    f = await bootRestFixture(
      `CREATE FUNCTION slow(seconds float) RETURNS int LANGUAGE sql VOLATILE AS 'SELECT 1 FROM pg_sleep(seconds)';`,
      { REST_STATEMENT_TIMEOUT_MS: '300' },
    );
  });
  afterAll(() => f?.platform.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    request(f.rest, 'GET', path, { token: f.project.serviceKey, headers });

  it('caps every read at the project max_rows, top level and embeds', async () => {
    const patch = await request(
      f.platform.control,
      'PATCH',
      `/v1/projects/${f.project.ref}/postgrest`,
      {
        token: f.token,
        body: { max_rows: 1 },
      },
    );
    expect(patch.status).toBe(200);
    // The data plane drops its cached project context on the invalidation message.
    const capped = await waitFor('max_rows applied', async () => {
      const res = await get('/films?select=id&order=id', { prefer: 'count=exact' });
      return (res.body as unknown[]).length === 1 ? res : undefined;
    });
    expect([capped.status, capped.headers.get('content-range')]).toEqual([206, '0-0/6']);
    // Director 2 has two films; the embed is capped too, whatever limit the client asks.
    const embedded = await get(
      '/directors?select=id,films(id)&id=eq.2&films.order=id&films.limit=5',
    );
    expect(embedded.body).toEqual([{ id: 2, films: [{ id: 3 }] }]);
  });

  it('ends a statement that runs past the timeout with a JSON error, and serves the next request', async () => {
    const slow = await request(f.rest, 'POST', '/rpc/slow', {
      token: f.project.serviceKey,
      body: { seconds: 5 },
    });
    expect(slow.status).toBe(500);
    expect(slow.body).toMatchObject({
      code: '57014',
      message: 'canceling statement due to statement timeout',
    });
    const fast = await request(f.rest, 'POST', '/rpc/slow', {
      token: f.project.serviceKey,
      body: { seconds: 0 },
    });
    expect([fast.status, fast.body]).toEqual([200, 1]);
  });
});
