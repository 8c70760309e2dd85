import * as argon2 from 'argon2';

/**
 * argon2id with OWASP's recommended floor (m=19 MiB, t=2, p=1). The library's defaults
 * (m=64 MiB, t=3, p=4) cost ~10x more: on a 2-core host they capped sign-ins at about ten a
 * second and made the sign-in endpoint an easy way to exhaust the CPU. Hashes carry their
 * parameters, so older ones keep verifying.
 */
export const hashPassword = (password: string): Promise<string> =>
  argon2.hash(password, { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 });

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/**
 * A hash to verify against when the account does not exist, so a missing email costs
 * the same time as a wrong password and the two cannot be told apart.
 */
let dummyHash: Promise<string> | undefined;
export const dummyPasswordHash = (): Promise<string> =>
  (dummyHash ??= hashPassword('baseplate-dummy-password'));
