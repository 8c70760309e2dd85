import { request } from '../../support/http';
import { bootRestFixture, type RestFixture } from '../rest/fixture';

/** Per-project, per-client and per-account limits on sign-up and sign-in (Redis counters). */
describe('auth rate limits', () => {
  let f: RestFixture;
  beforeAll(async () => {
    f = await bootRestFixture('', { AUTH_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(() => f?.platform.close());

  const call = (path: string, body: unknown, ref = f.project.ref, key = f.project.anonKey) =>
    request(`${f.platform.data}/projects/${ref}`, 'POST', path, { headers: { apikey: key }, body });

  it('answers 429 over_request_rate_limit with Retry-After past the limit, per project', async () => {
    const login = { email: 'nobody@example.com', password: 'wrong-pass' };
    for (let i = 0; i < 3; i++) {
      expect((await call('/auth/v1/token?grant_type=password', login)).status).toBe(400);
    }
    const limited = await call('/auth/v1/token?grant_type=password', login);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      code: 'over_request_rate_limit',
      error_code: 'over_request_rate_limit',
    });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another project's counters are its own.
    const other = await f.platform.newProject(f.token, 'other');
    const elsewhere = await call(
      '/auth/v1/token?grant_type=password',
      login,
      other.ref,
      other.anonKey,
    );
    expect(elsewhere.status).toBe(400);
  });

  it('limits sign-ups per client too', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await call('/auth/v1/signup', { email: `s${i}@example.com`, password: 'secret-1' }))
          .status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
