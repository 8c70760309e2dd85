import { request, waitFor } from '../../support/http';
import { createTestClient } from '../rest/compat/supabase-client';
import { bootRestFixture, type RestFixture } from '../rest/fixture';

/**
 * The first slice of /auth/v1 with supabase-js: sign-up (confirmation on and off), password
 * sign-in, the user, metadata and password updates, refresh, sign-out, and a user token that
 * REST policies see through auth.uid().
 */
describe('auth core with supabase-js', () => {
  let f: RestFixture;
  beforeAll(async () => {
    f = await bootRestFixture(`
      CREATE TABLE todos (id serial PRIMARY KEY, owner uuid NOT NULL DEFAULT auth.uid(), title text NOT NULL);
      ALTER TABLE todos ENABLE ROW LEVEL SECURITY;
      CREATE POLICY own ON todos TO authenticated USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
      GRANT ALL ON todos TO authenticated; GRANT ALL ON SEQUENCE todos_id_seq TO authenticated;
    `);
  });
  afterAll(() => f?.platform.close());

  const client = () =>
    createTestClient(`${f.platform.data}/projects/${f.project.ref}`, f.project.anonKey);
  const setAutoconfirm = async (on: boolean) => {
    const res = await request(
      f.platform.control,
      'PATCH',
      `/v1/projects/${f.project.ref}/config/auth`,
      {
        token: f.token,
        body: { mailer_autoconfirm: on },
      },
    );
    expect(res.status).toBe(200);
    // The data plane sees the change once the invalidation reaches it.
    await waitFor('auth settings applied', async () => {
      const s = await request(
        f.platform.data,
        'GET',
        `/projects/${f.project.ref}/auth/v1/settings`,
        {
          headers: { apikey: f.project.anonKey },
        },
      );
      return s.body.mailer_autoconfirm === on;
    });
  };

  it('signs up without a session while confirmation is required, and refuses the sign-in', async () => {
    await setAutoconfirm(false);
    const sb = client();
    const { data, error } = await sb.auth.signUp({
      email: 'wait@example.com',
      password: 'secret-1',
    });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user).toMatchObject({ email: 'wait@example.com', email_confirmed_at: null });
    const signIn = await sb.auth.signInWithPassword({
      email: 'wait@example.com',
      password: 'secret-1',
    });
    expect(signIn.error).toMatchObject({ status: 400, code: 'email_not_confirmed' });
  });

  it('signs up with a session when autoconfirm is on; signs in, reads and updates the user', async () => {
    await setAutoconfirm(true);
    const sb = client();
    const up = await sb.auth.signUp({
      email: 'Ada@Example.com',
      password: 'secret-1',
      options: { data: { full_name: 'Ada' } },
    });
    expect(up.error).toBeNull();
    expect(up.data.session).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(up.data.user).toMatchObject({
      email: 'ada@example.com',
      user_metadata: { full_name: 'Ada' },
    });

    const dup = await sb.auth.signUp({ email: 'ada@example.com', password: 'secret-1' });
    expect(dup.error).toMatchObject({ status: 422, code: 'user_already_exists' });
    const wrong = await sb.auth.signInWithPassword({
      email: 'ada@example.com',
      password: 'nope-nope',
    });
    expect(wrong.error).toMatchObject({ status: 400, code: 'invalid_credentials' });
    const nobody = await sb.auth.signInWithPassword({
      email: 'nobody@example.com',
      password: 'nope-nope',
    });
    expect(nobody.error).toMatchObject({ status: 400, code: 'invalid_credentials' });
    const weak = await sb.auth.signUp({ email: 'weak@example.com', password: '123' });
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password' });

    const signIn = await sb.auth.signInWithPassword({
      email: 'ada@example.com',
      password: 'secret-1',
    });
    expect(signIn.error).toBeNull();
    const token = signIn.data.session!.access_token;
    const me = await sb.auth.getUser(token);
    expect(me.data.user).toMatchObject({ id: up.data.user!.id, email: 'ada@example.com' });

    const { data: updated } = await sb.auth.updateUser({ data: { avatar_url: 'a.png' } });
    expect(updated.user!.user_metadata).toEqual({ full_name: 'Ada', avatar_url: 'a.png' });
    expect((await sb.auth.updateUser({ password: 'secret-2' })).error).toBeNull();
    // The current session stays valid; the new password signs in, the old one no longer.
    expect((await sb.auth.getUser()).data.user!.id).toBe(up.data.user!.id);
    const other = client();
    expect(
      (await other.auth.signInWithPassword({ email: 'ada@example.com', password: 'secret-1' }))
        .error,
    ).toMatchObject({ code: 'invalid_credentials' });
    expect(
      (await other.auth.signInWithPassword({ email: 'ada@example.com', password: 'secret-2' }))
        .error,
    ).toBeNull();
  });

  it('rotates refresh tokens and signs out by scope', async () => {
    await setAutoconfirm(true);
    const a = client();
    const b = client();
    await a.auth.signUp({ email: 'rot@example.com', password: 'secret-1' });
    await b.auth.signInWithPassword({ email: 'rot@example.com', password: 'secret-1' });
    const before = (await a.auth.getSession()).data.session!;
    const refreshed = await a.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session!.refresh_token).not.toBe(before.refresh_token);
    expect((await a.auth.getUser()).data.user!.email).toBe('rot@example.com');
    // signOut({scope: 'others'}) ends b's session, not a's.
    await a.auth.signOut({ scope: 'others' });
    expect((await a.auth.getUser()).error).toBeNull();
    // session_not_found: supabase-js turns it into AuthSessionMissingError and drops b's session.
    const bUser = await b.auth.getUser();
    expect(bUser.error).toMatchObject({ name: 'AuthSessionMissingError' });
    await a.auth.signOut();
  });

  it("gives REST policies the user's id through auth.uid()", async () => {
    await setAutoconfirm(true);
    const alice = client();
    const bob = client();
    await alice.auth.signUp({ email: 'alice@example.com', password: 'secret-1' });
    await bob.auth.signUp({ email: 'bob@example.com', password: 'secret-1' });
    await alice.from('todos').insert({ title: 'alice todo' });
    await bob.from('todos').insert({ title: 'bob todo' });
    const aliceId = (await alice.auth.getUser()).data.user!.id;
    const { data } = await alice.from('todos').select('title, owner');
    expect(data).toEqual([{ title: 'alice todo', owner: aliceId }]);
    const forged = await alice
      .from('todos')
      .insert({ title: 'as bob', owner: (await bob.auth.getUser()).data.user!.id });
    expect(forged.error).toMatchObject({ code: '42501' });
  });

  it('serves the short paths of the spec (4.2) with the same shapes, under both URL forms', async () => {
    await setAutoconfirm(true);
    const headers = { apikey: f.project.anonKey };
    for (const base of [`${f.platform.data}/projects/${f.project.ref}`, f.platform.data]) {
      const email = `short-${base.length}@example.com`;
      const signup = await request(base, 'POST', '/auth/signup', {
        headers,
        body: { email, password: 'secret-1', full_name: 'Short Path' },
      });
      expect(signup.status).toBe(200);
      expect(signup.body).toMatchObject({
        token_type: 'bearer',
        expires_in: 3600,
        user: { email, user_metadata: { full_name: 'Short Path' } },
      });
      expect(signup.headers.get('x-supabase-api-version')).toBe('2024-01-01');
      const login = await request(base, 'POST', '/auth/login', {
        headers,
        body: { email, password: 'secret-1' },
      });
      expect(login.status).toBe(200);
      const token = login.body.access_token as string;
      const me = await request(base, 'GET', '/auth/me', { headers, token });
      expect([me.status, me.body.email]).toEqual([200, email]);
      const out = await request(base, 'POST', '/auth/logout', { headers, token, raw: '' });
      expect(out.status).toBe(204);
      const after = await request(base, 'GET', '/auth/me', { headers, token });
      expect([after.status, after.body.code]).toEqual([403, 'session_not_found']);
      const bad = await request(base, 'POST', '/auth/login', {
        headers,
        body: { email, password: 'wrong-pass' },
      });
      expect(bad.body).toMatchObject({
        code: 'invalid_credentials',
        error_code: 'invalid_credentials',
        error: 'Invalid login credentials',
      });
    }
  });
});
