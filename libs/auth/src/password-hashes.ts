import bcrypt from 'bcryptjs';
import { hashPassword, verifyPassword } from '@baseplate/security';

const BCRYPT = /^\$2[aby]\$\d{2}\$/;

/** A bcrypt hash (`$2a$`, `$2b$`, `$2y$`): what GoTrue stores, so what a Supabase export holds. */
export const isBcryptHash = (hash: string): boolean => BCRYPT.test(hash);

/**
 * Checks a password against a stored hash: argon2id (ours) or bcrypt (imported from
 * Supabase). `rehash` is set when the password matched a bcrypt hash: the caller stores it
 * so the account moves to argon2id on this sign-in.
 */
export async function checkStoredPassword(
  stored: string,
  password: string,
): Promise<{ ok: boolean; rehash?: string }> {
  if (!isBcryptHash(stored)) return { ok: await verifyPassword(stored, password) };
  // bcrypt reads 72 bytes at most; a longer password must not match on its prefix alone.
  if (Buffer.byteLength(password, 'utf8') > 72) return { ok: false };
  if (!(await bcrypt.compare(password, stored))) return { ok: false };
  return { ok: true, rehash: await hashPassword(password) };
}
