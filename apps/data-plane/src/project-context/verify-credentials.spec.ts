import { SignJWT } from 'jose';
import { signApiKey } from '@baseplate/security';
import { verifyCredentials } from './verify-credentials';

const REF = 'aaaaaaaaaaaaaaaaaaaa';
const OTHER = 'bbbbbbbbbbbbbbbbbbbb';
const SECRET = 'project-secret-of-at-least-32-characters';
const now = () => Math.floor(Date.now() / 1000);

const token = (claims: Record<string, unknown>, secret = SECRET, exp = now() + 3600) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));

const rejects = (p: Promise<unknown>, message: RegExp) =>
  expect(p).rejects.toMatchObject({
    status: 401,
    code: 'unauthorized',
    message: expect.stringMatching(message),
  });

describe('verifyCredentials', () => {
  it('takes the role of the apikey alone', async () => {
    const anon = await signApiKey(SECRET, REF, 'anon', now());
    await expect(verifyCredentials({ apikey: anon }, REF, SECRET)).resolves.toMatchObject({
      role: 'anon',
      claims: { role: 'anon', ref: REF, iss: 'baseplate' },
    });
  });

  it('takes the role of the Bearer token over the apikey, and accepts a Bearer-only request', async () => {
    const anon = await signApiKey(SECRET, REF, 'anon', now());
    const user = await token({ role: 'authenticated', ref: REF, sub: 'u1' });
    await expect(
      verifyCredentials({ apikey: anon, bearer: user }, REF, SECRET),
    ).resolves.toMatchObject({
      role: 'authenticated',
      claims: { sub: 'u1' },
    });
    const service = await signApiKey(SECRET, REF, 'service_role', now());
    await expect(verifyCredentials({ bearer: service }, REF, SECRET)).resolves.toMatchObject({
      role: 'service_role',
    });
    await expect(
      verifyCredentials({ apikey: service, bearer: service }, REF, SECRET),
    ).resolves.toMatchObject({
      role: 'service_role',
    });
  });

  it('refuses a valid apikey paired with a bad Bearer token: no fallback', async () => {
    const anon = await signApiKey(SECRET, REF, 'anon', now());
    await rejects(
      verifyCredentials({ apikey: anon, bearer: 'garbage' }, REF, SECRET),
      /Invalid JWT/,
    );
    const foreign = await token(
      { role: 'authenticated', ref: REF },
      'another-secret-of-at-least-32-chars',
    );
    await rejects(verifyCredentials({ apikey: anon, bearer: foreign }, REF, SECRET), /Invalid JWT/);
  });

  it('refuses expired tokens beyond the 30 s skew', async () => {
    const expired = await token({ role: 'anon', ref: REF }, SECRET, now() - 120);
    await rejects(verifyCredentials({ apikey: expired }, REF, SECRET), /API key has expired/);
    const lenient = await token({ role: 'anon', ref: REF }, SECRET, now() - 5);
    await expect(verifyCredentials({ apikey: lenient }, REF, SECRET)).resolves.toMatchObject({
      role: 'anon',
    });
  });

  it('refuses a token of the right secret whose ref is another project or missing', async () => {
    await rejects(
      verifyCredentials({ apikey: await token({ role: 'anon', ref: OTHER }) }, REF, SECRET),
      /another project|not belong/,
    );
    await rejects(
      verifyCredentials({ bearer: await token({ role: 'anon' }) }, REF, SECRET),
      /not belong/,
    );
  });

  it.each([['postgres'], ['authenticator'], [undefined], [7]])('refuses role %p', async (role) => {
    await rejects(
      verifyCredentials({ bearer: await token({ role, ref: REF }) }, REF, SECRET),
      /role/,
    );
  });

  it('refuses tampered signatures, alg none and garbage', async () => {
    const anon = await signApiKey(SECRET, REF, 'anon', now());
    const [h, p, s] = anon.split('.');
    const elevated = Buffer.from(JSON.stringify({ role: 'service_role', ref: REF })).toString(
      'base64url',
    );
    await rejects(
      verifyCredentials({ apikey: `${h}.${elevated}.${s}` }, REF, SECRET),
      /Invalid API key/,
    );
    const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    await rejects(verifyCredentials({ apikey: `${none}.${p}.` }, REF, SECRET), /Invalid API key/);
    await rejects(verifyCredentials({ apikey: 'garbage' }, REF, SECRET), /Invalid API key/);
    await rejects(verifyCredentials({ apikey: '' }, REF, SECRET), /Invalid API key/);
  });

  it('needs a credential unless the route is public, where none means anon', async () => {
    await rejects(verifyCredentials({}, REF, SECRET), /No API key/);
    await expect(
      verifyCredentials({}, REF, SECRET, { credentialsOptional: true }),
    ).resolves.toEqual({
      role: 'anon',
      claims: { role: 'anon' },
    });
    await rejects(
      verifyCredentials({ apikey: 'garbage' }, REF, SECRET, { credentialsOptional: true }),
      /Invalid/,
    );
    await rejects(
      verifyCredentials({ malformedAuthorization: true }, REF, SECRET, {
        credentialsOptional: true,
      }),
      /Bearer/,
    );
  });
});
