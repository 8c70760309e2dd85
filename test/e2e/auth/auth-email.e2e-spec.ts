import type { AuthChangeEvent } from '@supabase/supabase-js';
import { request, waitFor } from '../../support/http';
import {
  decodedText,
  type ReceivedMail,
  startSmtpServer,
  type TestSmtpServer,
} from '../../support/smtp';
import { createTestClient } from '../rest/compat/supabase-client';
import { bootRestFixture, type RestFixture } from '../rest/fixture';

const SITE = 'http://app.test';
const EMAIL_INTERVAL_S = 2;
const ALLOWED = 'http://localhost:5173/**';

/** The verify link and the six-digit code of an auth email. */
function linkAndCode(mail: ReceivedMail): { link: string; code: string } {
  const text = decodedText(mail.raw);
  const link = /(http:\/\/[^\s"<>]+\/auth\/v1\/verify\?[^\s"<>]+)/.exec(text)?.[1];
  const code = /enter the code: (\d{6})/.exec(text)?.[1];
  if (!link || !code) throw new Error(`no link or code in:\n${text}`);
  return { link: link.replace(/&amp;/g, '&'), code };
}

/** Follows a verify link as a browser would, without going on to the site. */
async function follow(
  link: string,
): Promise<{ status: number; location: URL; fragment: URLSearchParams }> {
  const res = await fetch(link, { redirect: 'manual' });
  const location = new URL(res.headers.get('location') ?? '');
  return { status: res.status, location, fragment: new URLSearchParams(location.hash.slice(1)) };
}

/**
 * The email flows of /auth/v1 with supabase-js and a real SMTP server as the project's mail
 * host: sign-up confirmation by link, password recovery by code, magic links and email codes,
 * email change, invites and generate_link, the auth events a client sees along the way, and
 * the spec's short paths.
 */
describe('auth email flows', () => {
  let f: RestFixture;
  let smtp: TestSmtpServer;
  const seq = { n: 0 };
  const address = (label: string) => `${label}-${Date.now()}-${++seq.n}@example.com`;
  const client = () =>
    createTestClient(`${f.platform.data}/projects/${f.project.ref}`, f.project.anonKey);
  const admin = () =>
    createTestClient(`${f.platform.data}/projects/${f.project.ref}`, f.project.serviceKey);
  const mailTo = (to: string, subject?: string) =>
    smtp.waitForMessage(
      (m) => m.to.includes(to) && (subject === undefined || m.raw.includes(`Subject: ${subject}`)),
    );

  beforeAll(async () => {
    smtp = await startSmtpServer();
    f = await bootRestFixture(
      `
      CREATE TABLE notes (id serial PRIMARY KEY, owner uuid NOT NULL DEFAULT auth.uid(), body text);
      ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
      CREATE POLICY own ON notes TO authenticated USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
      GRANT ALL ON notes TO authenticated; GRANT ALL ON SEQUENCE notes_id_seq TO authenticated;
    `,
      // Two seconds between emails to one address, so a test can send a second one.
      { AUTH_EMAIL_INTERVAL_S: String(EMAIL_INTERVAL_S) },
    );
    const res = await request(
      f.platform.control,
      'PATCH',
      `/v1/projects/${f.project.ref}/config/auth`,
      {
        token: f.token,
        body: {
          mailer_autoconfirm: false,
          site_url: SITE,
          uri_allow_list: ALLOWED,
          smtp_host: '127.0.0.1',
          smtp_port: smtp.port,
          smtp_user: smtp.user,
          smtp_pass: smtp.pass,
          smtp_admin_email: 'auth@app.test',
          smtp_sender_name: 'App',
        },
      },
    );
    expect(res.status).toBe(200);
    await waitFor('auth settings applied', async () => {
      const s = await request(
        f.platform.data,
        'GET',
        `/projects/${f.project.ref}/auth/v1/settings`,
        {
          headers: { apikey: f.project.anonKey },
        },
      );
      return s.body.mailer_autoconfirm === false;
    });
  });
  afterAll(async () => {
    await f?.platform.close();
    await smtp?.close();
  });

  it('confirms a sign-up through the emailed link, redirecting with a session in the fragment', async () => {
    const sb = client();
    const email = address('confirm');
    const up = await sb.auth.signUp({
      email,
      password: 'secret-1',
      options: { emailRedirectTo: 'http://localhost:5173/welcome' },
    });
    expect(up.error).toBeNull();
    expect(up.data.session).toBeNull();
    expect(up.data.user).toMatchObject({ email, email_confirmed_at: null });
    expect(up.data.user?.confirmation_sent_at).toEqual(expect.any(String));

    const mail = await mailTo(email, 'Confirm Your Signup');
    expect(mail.from).toBe('auth@app.test');
    expect(mail.raw).toContain('From: App <auth@app.test>');
    const { link } = linkAndCode(mail);
    expect(link.startsWith(`${f.platform.data}/projects/${f.project.ref}/auth/v1/verify?`)).toBe(
      true,
    );

    const followed = await follow(link);
    expect(followed.status).toBe(303);
    expect(`${followed.location.origin}${followed.location.pathname}`).toBe(
      'http://localhost:5173/welcome',
    );
    expect(followed.fragment.get('type')).toBe('signup');
    expect(followed.fragment.get('token_type')).toBe('bearer');
    expect(Number(followed.fragment.get('expires_in'))).toBe(3600);

    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => void events.push(event));
    const set = await sb.auth.setSession({
      access_token: followed.fragment.get('access_token')!,
      refresh_token: followed.fragment.get('refresh_token')!,
    });
    expect(set.error).toBeNull();
    expect(set.data.user).toMatchObject({ email });
    expect(set.data.user?.email_confirmed_at).toEqual(expect.any(String));
    expect(events).toContain('SIGNED_IN');

    // The session is a real one: the REST API sees the user through auth.uid().
    const inserted = await sb.from('notes').insert({ body: 'mine' }).select().single();
    expect(inserted.error).toBeNull();
    expect(inserted.data.owner).toBe(set.data.user!.id);

    // The link is single-use: followed again it reports the failure to the site.
    const again = await follow(link);
    expect(again.status).toBe(303);
    expect(again.fragment.get('error_code')).toBe('otp_expired');
    expect(again.fragment.get('access_token')).toBeNull();

    const signIn = await client().auth.signInWithPassword({ email, password: 'secret-1' });
    expect(signIn.error).toBeNull();
  });

  it('sends links to site_url when redirect_to is not allowed, and refuses tampered tokens', async () => {
    const email = address('redirect');
    const up = await client().auth.signUp({
      email,
      password: 'secret-1',
      options: { emailRedirectTo: 'https://evil.example.net/steal' },
    });
    expect(up.error).toBeNull();
    const { link } = linkAndCode(await mailTo(email));
    expect(new URL(link).searchParams.get('redirect_to')).toBe(SITE);

    const tampered = new URL(link);
    tampered.searchParams.set('token', `${tampered.searchParams.get('token')}x`);
    tampered.searchParams.set('redirect_to', 'https://evil.example.net/steal');
    const bad = await follow(tampered.toString());
    expect(bad.location.origin).toBe(SITE);
    expect(bad.fragment.get('error_code')).toBe('otp_expired');

    const good = await follow(link);
    expect(good.location.origin).toBe(SITE);
    expect(good.fragment.get('access_token')).toEqual(expect.any(String));
  });

  it('recovers a password: email, code, PASSWORD_RECOVERY, new password; events along the way', async () => {
    const email = address('recover');
    const seed = await admin().auth.admin.createUser({
      email,
      password: 'old-secret',
      email_confirm: true,
    });
    expect(seed.error).toBeNull();

    const sb = client();
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => void events.push(event));

    const signIn = await sb.auth.signInWithPassword({ email, password: 'old-secret' });
    expect(signIn.error).toBeNull();
    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();

    const reset = await sb.auth.resetPasswordForEmail(email, {
      redirectTo: 'http://localhost:5173/reset',
    });
    expect(reset).toEqual({ data: {}, error: null });
    const { code } = linkAndCode(await mailTo(email, 'Reset Your Password'));

    const verified = await sb.auth.verifyOtp({ email, token: code, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.access_token).toEqual(expect.any(String));

    const updated = await sb.auth.updateUser({ password: 'new-secret' });
    expect(updated.error).toBeNull();
    await sb.auth.signOut();

    expect(events).toEqual([
      'INITIAL_SESSION',
      'SIGNED_IN',
      'TOKEN_REFRESHED',
      'PASSWORD_RECOVERY',
      'USER_UPDATED',
      'SIGNED_OUT',
    ]);
    const old = await client().auth.signInWithPassword({ email, password: 'old-secret' });
    expect(old.error).toMatchObject({ status: 400, code: 'invalid_credentials' });
    const fresh = await client().auth.signInWithPassword({ email, password: 'new-secret' });
    expect(fresh.error).toBeNull();

    // The code was used up.
    const reuse = await client().auth.verifyOtp({ email, token: code, type: 'recovery' });
    expect(reuse.error).toMatchObject({ status: 403, code: 'otp_expired' });
  });

  it('answers recover the same for unknown addresses, and sends one email per address a minute', async () => {
    const unknown = await client().auth.resetPasswordForEmail(address('nobody'));
    expect(unknown).toEqual({ data: {}, error: null });

    const email = address('throttle');
    const first = await client().auth.signUp({ email, password: 'secret-1' });
    expect(first.error).toBeNull();
    const resend = await client().auth.resend({ type: 'signup', email });
    expect(resend.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' });
    const raw = await request(
      f.platform.data,
      'POST',
      `/projects/${f.project.ref}/auth/v1/recover`,
      {
        headers: { apikey: f.project.anonKey },
        body: { email },
      },
    );
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('signs in with an email code (new user, then magic link), and stops a guessed code', async () => {
    const email = address('otp');
    const sent = await client().auth.signInWithOtp({ email, options: { data: { plan: 'free' } } });
    expect(sent.error).toBeNull();
    const { code } = linkAndCode(await mailTo(email, 'Confirm Your Signup'));
    const sb = client();
    const verified = await sb.auth.verifyOtp({ email, token: code, type: 'email' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ email, user_metadata: { plan: 'free' } });
    expect(verified.data.user?.email_confirmed_at).toEqual(expect.any(String));

    const refused = await client().auth.signInWithOtp({
      email: address('no-create'),
      options: { shouldCreateUser: false },
    });
    expect(refused.error).toMatchObject({ status: 422, code: 'otp_disabled' });

    // A magic link for a confirmed account, made by the admin API (no email, no throttle).
    const link = await admin().auth.admin.generateLink({ type: 'magiclink', email });
    expect(link.error).toBeNull();
    expect(link.data.properties).toMatchObject({
      verification_type: 'magiclink',
      redirect_to: SITE,
      email_otp: expect.stringMatching(/^\d{6}$/),
    });
    const wrong = link.data.properties!.email_otp === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const guess = await client().auth.verifyOtp({ email, token: wrong, type: 'email' });
      expect(guess.error).toMatchObject({ status: 403, code: 'otp_expired' });
    }
    // Five wrong guesses spent the code; its link is dead too.
    const right = await client().auth.verifyOtp({
      email,
      token: link.data.properties!.email_otp,
      type: 'email',
    });
    expect(right.error).toMatchObject({ status: 403, code: 'otp_expired' });

    const another = await admin().auth.admin.generateLink({ type: 'magiclink', email });
    const byHash = await client().auth.verifyOtp({
      token_hash: another.data.properties!.hashed_token,
      type: 'magiclink',
    });
    expect(byHash.error).toBeNull();
    expect(byHash.data.user?.id).toBe(verified.data.user!.id);
  });

  it('changes the email only once the new address follows its link', async () => {
    const email = address('change-old');
    const next = address('change-new');
    await admin().auth.admin.createUser({ email, password: 'secret-1', email_confirm: true });
    const sb = client();
    await sb.auth.signInWithPassword({ email, password: 'secret-1' });
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => void events.push(event));

    const asked = await sb.auth.updateUser({ email: next });
    expect(asked.error).toBeNull();
    expect(asked.data.user).toMatchObject({ email, new_email: next });
    expect(events).toContain('USER_UPDATED');

    const { link } = linkAndCode(await mailTo(next, 'Confirm Email Change'));
    const token = new URL(link).searchParams.get('token')!;
    const verified = await sb.auth.verifyOtp({ token_hash: token, type: 'email_change' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ email: next });
    expect(verified.data.user?.new_email).toBeUndefined();
    const signIn = await client().auth.signInWithPassword({ email: next, password: 'secret-1' });
    expect(signIn.error).toBeNull();

    // An address another account holds cannot be taken.
    const other = address('change-other');
    await admin().auth.admin.createUser({
      email: other,
      password: 'secret-1',
      email_confirm: true,
    });
    const clash = await sb.auth.updateUser({ email: other });
    expect(clash.error).toMatchObject({ status: 422, code: 'email_exists' });
  });

  it('invites a user who accepts through the link and sets a password; admin-only routes', async () => {
    const email = address('invite');
    const invited = await admin().auth.admin.inviteUserByEmail(email, {
      data: { team: 'red' },
      redirectTo: 'http://localhost:5173/accept',
    });
    expect(invited.error).toBeNull();
    expect(invited.data.user).toMatchObject({ email, user_metadata: { team: 'red' } });
    expect(invited.data.user?.invited_at).toEqual(expect.any(String));

    const { link } = linkAndCode(await mailTo(email, 'You have been invited'));
    const followed = await follow(link);
    expect(followed.location.pathname).toBe('/accept');
    expect(followed.fragment.get('type')).toBe('invite');
    const sb = client();
    await sb.auth.setSession({
      access_token: followed.fragment.get('access_token')!,
      refresh_token: followed.fragment.get('refresh_token')!,
    });
    expect((await sb.auth.updateUser({ password: 'chosen-1' })).error).toBeNull();
    expect(
      (await client().auth.signInWithPassword({ email, password: 'chosen-1' })).error,
    ).toBeNull();

    // The anon key (or a user) cannot invite or mint links.
    const asAnon = await request(
      f.platform.data,
      'POST',
      `/projects/${f.project.ref}/auth/v1/admin/generate_link`,
      {
        headers: { apikey: f.project.anonKey },
        body: { type: 'magiclink', email },
      },
    );
    expect([asAnon.status, asAnon.body.code]).toEqual([403, 'not_admin']);
    const inviteAnon = await client().auth.admin.inviteUserByEmail(address('x'));
    expect(inviteAnon.error).toMatchObject({ status: 403, code: 'not_admin' });
  });

  it('runs the same confirmation flow through the short paths of the spec (4.2)', async () => {
    const base = `${f.platform.data}/projects/${f.project.ref}`;
    const email = address('short');
    const signup = await request(base, 'POST', '/auth/signup', {
      headers: { apikey: f.project.anonKey },
      body: { email, password: 'secret-1', full_name: 'Short Path' },
    });
    expect(signup.status).toBe(200);
    expect(signup.body).toMatchObject({ email, user_metadata: { full_name: 'Short Path' } });
    expect(signup.body.access_token).toBeUndefined();

    const early = await request(base, 'POST', '/auth/login', {
      headers: { apikey: f.project.anonKey },
      body: { email, password: 'secret-1' },
    });
    expect([early.status, early.body.code]).toEqual([400, 'email_not_confirmed']);

    const { link } = linkAndCode(await mailTo(email));
    expect((await follow(link)).fragment.get('access_token')).toEqual(expect.any(String));

    const login = await request(base, 'POST', '/auth/login', {
      headers: { apikey: f.project.anonKey },
      body: { email, password: 'secret-1' },
    });
    expect(login.status).toBe(200);
    const me = await request(base, 'GET', '/auth/me', {
      headers: { apikey: f.project.anonKey, authorization: `Bearer ${login.body.access_token}` },
    });
    expect(me.body).toMatchObject({ email, user_metadata: { full_name: 'Short Path' } });
    const out = await request(base, 'POST', '/auth/logout', {
      headers: { apikey: f.project.anonKey, authorization: `Bearer ${login.body.access_token}` },
    });
    expect(out.status).toBe(204);
  });

  it("does not let a pre-registered password survive the owner's confirmation", async () => {
    const email = address('prereg');
    // An attacker signs the address up first with a password of their own...
    expect((await client().auth.signUp({ email, password: 'attacker-1' })).error).toBeNull();
    await mailTo(email);
    await new Promise((r) => setTimeout(r, EMAIL_INTERVAL_S * 1000 + 100));
    // ...then the owner signs up and follows the link they receive.
    expect((await client().auth.signUp({ email, password: 'owner-pass-1' })).error).toBeNull();
    const links = await waitFor('the second email', async () => {
      const mails = smtp.messages.filter((m) => m.to.includes(email));
      return mails.length >= 2 ? mails : undefined;
    });
    const { link } = linkAndCode(links[1]!);
    expect((await follow(link)).fragment.get('access_token')).toEqual(expect.any(String));
    const attacker = await client().auth.signInWithPassword({ email, password: 'attacker-1' });
    expect(attacker.error).toMatchObject({ code: 'invalid_credentials' });
    const owner = await client().auth.signInWithPassword({ email, password: 'owner-pass-1' });
    expect(owner.error).toBeNull();

    // Confirming by email code (signInWithOtp) clears a pre-registered password too.
    const other = address('prereg-otp');
    expect((await client().auth.signUp({ email: other, password: 'attacker-1' })).error).toBeNull();
    await mailTo(other);
    await new Promise((r) => setTimeout(r, EMAIL_INTERVAL_S * 1000 + 100));
    expect((await client().auth.signInWithOtp({ email: other })).error).toBeNull();
    const codes = await waitFor('the code email', async () => {
      const mails = smtp.messages.filter((m) => m.to.includes(other));
      return mails.length >= 2 ? mails : undefined;
    });
    const verified = await client().auth.verifyOtp({
      email: other,
      token: linkAndCode(codes[1]!).code,
      type: 'email',
    });
    expect(verified.error).toBeNull();
    const stale = await client().auth.signInWithPassword({ email: other, password: 'attacker-1' });
    expect(stale.error).toMatchObject({ code: 'invalid_credentials' });
  });

  it('answers a confirmed address signing up again like a new one, without an email', async () => {
    const email = address('again');
    await admin().auth.admin.createUser({ email, password: 'secret-1', email_confirm: true });
    const before = smtp.messages.length;
    const up = await client().auth.signUp({ email, password: 'other-pass' });
    expect(up.error).toBeNull();
    expect(up.data.session).toBeNull();
    expect(up.data.user).toMatchObject({ email, email_confirmed_at: null });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.slice(before).some((m) => m.to.includes(email))).toBe(false);
    const still = await client().auth.signInWithPassword({ email, password: 'secret-1' });
    expect(still.error).toBeNull();
  });

  it('rejects malformed verify requests with 4xx', async () => {
    const verify = (body: unknown) =>
      request(f.platform.data, 'POST', `/projects/${f.project.ref}/auth/v1/verify`, {
        headers: { apikey: f.project.anonKey },
        body,
      });
    expect((await verify({ type: 'signup' })).status).toBe(400);
    expect((await verify({ type: 'nope', token_hash: 'x' })).status).toBe(400);
    expect((await verify({ type: '__proto__', token_hash: 'x' })).status).toBe(400);
    expect((await verify({ type: 'email', email: 'a@b.co', token: 'abc' })).body.code).toBe(
      'otp_expired',
    );
    expect((await verify({ type: 'signup', token_hash: "' OR 1=1 --" })).body.code).toBe(
      'otp_expired',
    );
    // A body that is not JSON: still GoTrue's error keys, which supabase-js reads.
    const malformed = await fetch(`${f.platform.data}/projects/${f.project.ref}/auth/v1/verify`, {
      method: 'POST',
      headers: { apikey: f.project.anonKey, 'content-type': 'application/json' },
      body: '{"type": "signup",',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    const malformedBody = (await malformed.json()) as Record<string, unknown>;
    expect(malformedBody.error_code).toBe(malformedBody.code);
    expect(malformedBody.msg).toEqual(expect.any(String));
    const link = await fetch(
      `${f.platform.data}/projects/${f.project.ref}/auth/v1/verify?type=signup&redirect_to=${encodeURIComponent('javascript:alert(1)')}`,
      { redirect: 'manual' },
    );
    expect(link.status).toBe(303);
    expect(link.headers.get('location')).toMatch(/^http:\/\/app\.test\/?#error=access_denied/);
  });
});
