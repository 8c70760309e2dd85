import bcrypt from 'bcryptjs';
import { connectionUrl, projectDbName, withClient } from '@baseplate/database';
import { request } from '../../support/http';
import { createTestClient } from '../rest/compat/supabase-client';
import { bootRestFixture, type RestFixture } from '../rest/fixture';

/** supabase-js `auth.admin` with the service key; any other caller is refused. */
describe('auth admin with supabase-js', () => {
  let f: RestFixture;
  beforeAll(async () => {
    f = await bootRestFixture();
  });
  afterAll(() => f?.platform.close());

  const url = () => `${f.platform.data}/projects/${f.project.ref}`;

  it('creates, lists, reads, updates and deletes users', async () => {
    const admin = createTestClient(url(), f.project.serviceKey).auth.admin;
    const created = await admin.createUser({
      email: 'Grace@Example.com',
      password: 'secret-1',
      email_confirm: true,
      user_metadata: { full_name: 'Grace' },
      app_metadata: { plan: 'pro' },
    });
    expect(created.error).toBeNull();
    const user = created.data.user!;
    expect(user).toMatchObject({
      email: 'grace@example.com',
      user_metadata: { full_name: 'Grace' },
      app_metadata: { provider: 'email', providers: ['email'], plan: 'pro' },
    });
    expect(user.email_confirmed_at).not.toBeNull();
    for (const n of [1, 2]) {
      await admin.createUser({ email: `u${n}@example.com`, password: 'secret-1' });
    }

    const page = await admin.listUsers({ page: 1, perPage: 2 });
    expect(page.error).toBeNull();
    expect(page.data.users).toHaveLength(2);
    expect(page.data).toMatchObject({ total: 3, nextPage: 2, lastPage: 2 });
    const all = await admin.listUsers();
    expect(all.data.users.map((u) => u.email).sort()).toEqual([
      'grace@example.com',
      'u1@example.com',
      'u2@example.com',
    ]);

    expect((await admin.getUserById(user.id)).data.user!.email).toBe('grace@example.com');
    const updated = await admin.updateUserById(user.id, { user_metadata: { team: 'core' } });
    expect(updated.data.user!.user_metadata).toEqual({ full_name: 'Grace', team: 'core' });

    // The confirmed user signs in; banned, she cannot.
    const sb = createTestClient(url(), f.project.anonKey);
    expect(
      (await sb.auth.signInWithPassword({ email: 'grace@example.com', password: 'secret-1' }))
        .error,
    ).toBeNull();
    await admin.updateUserById(user.id, { ban_duration: '24h' });
    const banned = await sb.auth.signInWithPassword({
      email: 'grace@example.com',
      password: 'secret-1',
    });
    expect(banned.error).toMatchObject({ code: 'user_banned' });

    expect((await admin.deleteUser(user.id)).error).toBeNull();
    const gone = await admin.getUserById(user.id);
    expect(gone.error).toMatchObject({ status: 404, code: 'user_not_found' });
  });

  it('refuses the admin routes to anything but the service key', async () => {
    const res = await request(url(), 'GET', '/auth/v1/admin/users', {
      headers: { apikey: f.project.anonKey },
    });
    expect([res.status, res.body.code]).toEqual([403, 'not_admin']);
    const bad = await request(url(), 'GET', '/auth/v1/admin/users/not-a-uuid', {
      headers: { apikey: f.project.serviceKey },
    });
    expect([bad.status, bad.body.code]).toEqual([404, 'user_not_found']);
  });

  it('signs in a user imported with a bcrypt hash and moves the hash to argon2id', async () => {
    // As a Supabase export would land (the cluster admin writes auth.users directly).
    const db = connectionUrl(process.env.BASEPLATE_TEST_ADMIN_URL!, projectDbName(f.project.ref));
    const hash = await bcrypt.hash('imported-1', 4);
    await withClient(db, (c) =>
      c.query(
        `INSERT INTO auth.users (email, encrypted_password, email_confirmed_at) VALUES ($1, $2, now())`,
        ['imported@example.com', hash],
      ),
    );
    const sb = createTestClient(url(), f.project.anonKey);
    const wrong = await sb.auth.signInWithPassword({
      email: 'imported@example.com',
      password: 'nope-nope',
    });
    expect(wrong.error).toMatchObject({ code: 'invalid_credentials' });
    const ok = await sb.auth.signInWithPassword({
      email: 'imported@example.com',
      password: 'imported-1',
    });
    expect(ok.error).toBeNull();
    const stored = await withClient(db, (c) =>
      c.query<{ h: string }>(
        "SELECT encrypted_password AS h FROM auth.users WHERE email = 'imported@example.com'",
      ),
    );
    expect(stored.rows[0]!.h).toMatch(/^\$argon2id\$/);
    const again = await createTestClient(url(), f.project.anonKey).auth.signInWithPassword({
      email: 'imported@example.com',
      password: 'imported-1',
    });
    expect(again.error).toBeNull();
  });
});
