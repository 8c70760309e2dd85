import { AuthErrors } from './errors';

/**
 * The project's password rule (GoTrue's `password_min_length`). A too-short password is a
 * 422 `weak_password` whose `reasons` supabase-js exposes as AuthWeakPasswordError.reasons.
 */
export function checkPassword(password: unknown, minLength: number): string {
  if (typeof password !== 'string' || password === '') {
    throw AuthErrors.validation('Password is required');
  }
  if ([...password].length < minLength) {
    throw AuthErrors.weakPassword(
      ['length'],
      `Password should be at least ${minLength} characters.`,
    );
  }
  // argon2 and bcrypt both have input limits; bcrypt's 72 bytes is GoTrue's documented cap.
  if (Buffer.byteLength(password, 'utf8') > 72) {
    throw AuthErrors.validation('Password cannot be longer than 72 characters');
  }
  return password;
}
