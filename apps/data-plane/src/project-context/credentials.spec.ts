import { signApiKey } from '@baseplate/security';
import { hasCredentials, isApiRole, peekRef, readCredentials, resolveRef } from './credentials';

const A = 'aaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbb';
const C = 'cccccccccccccccccccc';
const key = (ref: string) => signApiKey('secret-of-' + ref, ref, 'anon', 1_700_000_000);

describe('readCredentials', () => {
  it('reads apikey and a Bearer token, scheme case-insensitive', () => {
    expect(readCredentials({ apikey: ' k1 ', authorization: 'bearer t1' })).toEqual({
      apikey: 'k1',
      bearer: 't1',
    });
    expect(readCredentials({ authorization: 'Bearer   t2  ' })).toEqual({ bearer: 't2' });
    expect(readCredentials({})).toEqual({});
  });

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer a b', 'Token abc'])(
    'flags Authorization "%s" as malformed instead of ignoring it',
    (authorization) => {
      const creds = readCredentials({ authorization });
      expect(creds).toEqual({ malformedAuthorization: true });
      expect(hasCredentials(creds)).toBe(true);
    },
  );
});

describe('resolveRef', () => {
  it('prefers the path, then the apikey, then the Bearer token', async () => {
    const creds = { apikey: await key(B), bearer: await key(C) };
    expect(resolveRef({ ref: A, source: 'path' }, creds)).toEqual({ ref: A, source: 'path' });
    expect(resolveRef(undefined, creds)).toEqual({ ref: B, source: 'apikey' });
    expect(resolveRef(undefined, { bearer: await key(C) })).toEqual({ ref: C, source: 'bearer' });
  });

  it('falls through an apikey that names no project', async () => {
    expect(resolveRef(undefined, { apikey: 'garbage', bearer: await key(C) })).toEqual({
      ref: C,
      source: 'bearer',
    });
  });

  it('gives nothing when no credential names a project', () => {
    expect(resolveRef(undefined, {})).toBeUndefined();
    expect(resolveRef(undefined, { apikey: 'garbage', bearer: 'x.y.z' })).toBeUndefined();
  });
});

describe('peekRef', () => {
  const unsigned = (claims: unknown) =>
    `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

  it('reads a string ref claim only', () => {
    expect(peekRef(unsigned({ ref: A }))).toBe(A);
    expect(peekRef(unsigned({ ref: 42 }))).toBeUndefined();
    expect(peekRef(unsigned({ ref: '' }))).toBeUndefined();
    expect(peekRef(unsigned(['x']))).toBeUndefined();
    expect(peekRef('not a jwt')).toBeUndefined();
    expect(peekRef(undefined)).toBeUndefined();
  });
});

describe('isApiRole', () => {
  it.each(['anon', 'authenticated', 'service_role'])('accepts %s', (role) =>
    expect(isApiRole(role)).toBe(true),
  );
  it.each(['postgres', 'authenticator', 'supabase_admin', '', 'ANON', undefined, 1, ['anon']])(
    'refuses %p',
    (role) => expect(isApiRole(role)).toBe(false),
  );
});
