import * as argon2 from 'argon2';

/** argon2id with the library's defaults (m=64 MiB, t=3, p=4). */
export const hashPassword = (password: string): Promise<string> =>
  argon2.hash(password, { type: argon2.argon2id });

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
