import bcrypt from 'bcryptjs';
import { hashPassword } from '@baseplate/security';
import { checkStoredPassword, isBcryptHash } from './password-hashes';

describe('checkStoredPassword', () => {
  it('verifies bcrypt hashes from a Supabase export and asks for an argon2id rehash', async () => {
    const stored = await bcrypt.hash('secret-1', 4);
    expect(isBcryptHash(stored)).toBe(true);
    const ok = await checkStoredPassword(stored, 'secret-1');
    expect(ok.ok).toBe(true);
    expect(ok.rehash).toMatch(/^\$argon2id\$/);
    expect(await checkStoredPassword(stored, 'secret-2')).toEqual({ ok: false });
  });

  it('refuses a long password whose 72-byte prefix matches a bcrypt hash', async () => {
    const long = 'x'.repeat(80);
    const stored = await bcrypt.hash(long.slice(0, 72), 4);
    expect(await checkStoredPassword(stored, long)).toEqual({ ok: false });
  });

  it('checks argon2id hashes without a rehash', async () => {
    const stored = await hashPassword('secret-1');
    expect(isBcryptHash(stored)).toBe(false);
    expect(await checkStoredPassword(stored, 'secret-1')).toEqual({ ok: true });
    expect(await checkStoredPassword(stored, 'nope')).toEqual({ ok: false });
  });
});
