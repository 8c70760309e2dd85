import { decodeJwt } from 'jose';
import { verifyProjectJwt } from '@baseplate/security';
import { AuthError, AuthErrors } from './errors';
import { checkPassword } from './passwords';
import { hashToken, issueAccessToken, newRefreshToken } from './tokens';
import { normalizeEmail, toAuthUser, type UserRow } from './users';

const row: UserRow = {
  id: '8f6a1c7e-2b1d-4c4e-9a53-0d6f2b3f9a10',
  aud: 'authenticated',
  role: 'authenticated',
  email: 'ada@example.com',
  phone: null,
  email_confirmed_at: new Date('2026-01-02T03:04:05Z'),
  last_sign_in_at: null,
  raw_app_meta_data: { plan: 'pro' },
  raw_user_meta_data: { full_name: 'Ada' },
  is_anonymous: false,
  created_at: new Date('2026-01-01T00:00:00Z'),
  updated_at: new Date('2026-01-02T00:00:00Z'),
};

describe('auth errors', () => {
  it('carry GoTrue keys for both client protocols, and the spec error string', () => {
    expect(AuthErrors.invalidCredentials().toJSON()).toEqual({
      code: 'invalid_credentials',
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
      message: 'Invalid login credentials',
      error: 'Invalid login credentials',
    });
    const weak = AuthErrors.weakPassword(['length'], 'too short');
    expect(weak).toBeInstanceOf(AuthError);
    expect([weak.status, weak.toJSON().weak_password]).toEqual([422, { reasons: ['length'] }]);
  });
});

describe('checkPassword', () => {
  it('refuses missing, short and over-long passwords with the right codes', () => {
    expect(() => checkPassword(undefined, 6)).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
    expect(() => checkPassword('12345', 6)).toThrow(
      expect.objectContaining({ code: 'weak_password', status: 422 }),
    );
    expect(() => checkPassword('é'.repeat(40), 6)).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
    expect(checkPassword('123456', 6)).toBe('123456');
  });
});

describe('tokens', () => {
  it('issues an access token the data plane verifies, with GoTrue claims and the ref', async () => {
    const secret = 'a-project-secret-of-at-least-32-characters';
    const { token, expiresAt } = await issueAccessToken({
      secret,
      ref: 'abcdefghij0123456789',
      user: toAuthUser(row),
      sessionId: '11111111-2222-4333-8444-555555555555',
      expiresIn: 3600,
      issuedAt: Math.floor(Date.now() / 1000),
    });
    const verified = await verifyProjectJwt(token, secret);
    expect(verified.ok).toBe(true);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      sub: row.id,
      aud: 'authenticated',
      role: 'authenticated',
      email: 'ada@example.com',
      session_id: '11111111-2222-4333-8444-555555555555',
      ref: 'abcdefghij0123456789',
      user_metadata: { full_name: 'Ada' },
      app_metadata: { provider: 'email', providers: ['email'], plan: 'pro' },
      is_anonymous: false,
    });
    expect(claims.exp).toBe(expiresAt);
    expect((await verifyProjectJwt(token, `${secret}x`)).ok).toBe(false);
  });

  it('makes opaque refresh tokens and keeps only their hash', () => {
    const a = newRefreshToken();
    const b = newRefreshToken();
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toBe(hashToken(a.token));
    expect(a.hash).not.toContain(a.token);
  });
});

describe('users', () => {
  it('renders the GoTrue user object', () => {
    expect(toAuthUser(row)).toEqual({
      id: row.id,
      aud: 'authenticated',
      role: 'authenticated',
      email: 'ada@example.com',
      phone: '',
      email_confirmed_at: '2026-01-02T03:04:05.000Z',
      confirmed_at: '2026-01-02T03:04:05.000Z',
      last_sign_in_at: null,
      app_metadata: { provider: 'email', providers: ['email'], plan: 'pro' },
      user_metadata: { full_name: 'Ada' },
      identities: [],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
      is_anonymous: false,
    });
  });

  it.each([
    ['  Ada@Example.COM ', 'ada@example.com'],
    ['a@b.co', 'a@b.co'],
    ['no-at-sign', undefined],
    ['two@@example.com', undefined],
    ["x@example.com'; DROP TABLE auth.users; --", undefined],
    ['x@example.com\r\nBcc: victim@example.com', undefined],
    [42, undefined],
  ])('normalizes %j to %j', (input, expected) => {
    expect(normalizeEmail(input)).toBe(expected);
  });
});
