import { SecretBox } from './encryption';
import { peekClaims, signApiKey, verifyProjectJwt } from './project-jwt';
import { generateProjectRef, isProjectRef, sha256Hex } from './tokens';

describe('SecretBox', () => {
  const box = new SecretBox(Buffer.alloc(32, 1));

  it('round-trips and uses a fresh IV every time', () => {
    const a = box.seal('s3cret');
    const b = box.seal('s3cret');
    expect(a).not.toBe(b);
    expect(a).not.toContain('s3cret');
    expect(box.open(a)).toBe('s3cret');
  });

  it('refuses tampered ciphertext and another master key', () => {
    const sealed = box.seal('s3cret');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('x' + Buffer.from(parts[3]!, 'base64url').toString('latin1')).toString(
      'base64url',
    );
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed)).toThrow();
  });
});

describe('project refs', () => {
  it('are 20 lowercase letters and digits, and differ', () => {
    const refs = new Set(Array.from({ length: 200 }, generateProjectRef));
    expect(refs.size).toBe(200);
    for (const ref of refs) expect(isProjectRef(ref)).toBe(true);
    expect(isProjectRef('ABCDEFGHIJKLMNOPQRST')).toBe(false);
    expect(isProjectRef('abc')).toBe(false);
  });
});

describe('API keys', () => {
  const secret = 'x'.repeat(40);

  it('are deterministic for a secret and issue time, and verify', async () => {
    const k1 = await signApiKey(secret, 'ref1', 'anon', 1_700_000_000);
    const k2 = await signApiKey(secret, 'ref1', 'anon', 1_700_000_000);
    expect(k1).toBe(k2);
    const result = await verifyProjectJwt(k1, secret);
    expect(result).toMatchObject({
      ok: true,
      claims: { role: 'anon', ref: 'ref1', iss: 'baseplate' },
    });
  });

  it('do not verify under another secret, and a tampered payload fails', async () => {
    const key = await signApiKey(secret, 'ref1', 'service_role', Math.floor(Date.now() / 1000));
    expect(await verifyProjectJwt(key, 'y'.repeat(40))).toEqual({ ok: false, reason: 'invalid' });
    const [h, , s] = key.split('.');
    const forged = Buffer.from(JSON.stringify({ role: 'service_role', ref: 'other' })).toString(
      'base64url',
    );
    expect(await verifyProjectJwt(`${h}.${forged}.${s}`, secret)).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(peekClaims(`${h}.${forged}.${s}`)?.ref).toBe('other');
  });

  it('reports expiry', async () => {
    const old = await signApiKey(secret, 'ref1', 'anon', 1_000_000);
    expect(await verifyProjectJwt(old, secret)).toEqual({ ok: false, reason: 'expired' });
  });

  it('peekClaims tolerates garbage', () => {
    expect(peekClaims('nope')).toBeUndefined();
    expect(peekClaims('a.b.c')).toBeUndefined();
  });
});

it('sha256Hex is the standard digest', () => {
  expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});
