/**
 * Errors in GoTrue's shape. supabase-js reads `code` when the response carries
 * `X-Supabase-Api-Version: 2024-01-01` and `error_code` otherwise (wire reference §1.2, trap
 * T3): both are sent, with `msg` and `message`, plus the string `error` the spec asks for.
 */
export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra top-level fields (`weak_password: {reasons}`). */
    readonly extra: Record<string, unknown> = {},
    /** Response headers (`Retry-After`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AuthError';
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      error_code: this.code,
      msg: this.message,
      message: this.message,
      error: this.message,
      ...this.extra,
    };
  }
}

/** The response header that makes supabase-js read `code`. */
export const API_VERSION_HEADER = { name: 'x-supabase-api-version', value: '2024-01-01' } as const;

export const AuthErrors = {
  validation: (message: string) => new AuthError(400, 'validation_failed', message),
  invalidEmail: () =>
    new AuthError(400, 'validation_failed', 'Unable to validate email address: invalid format'),
  invalidCredentials: () => new AuthError(400, 'invalid_credentials', 'Invalid login credentials'),
  emailNotConfirmed: () => new AuthError(400, 'email_not_confirmed', 'Email not confirmed'),
  emailExists: () =>
    new AuthError(
      422,
      'email_exists',
      'A user with this email address has already been registered',
    ),
  otpExpired: () => new AuthError(403, 'otp_expired', 'Token has expired or is invalid'),
  otpDisabled: () => new AuthError(422, 'otp_disabled', 'Signups not allowed for otp'),
  emailRateLimited: (retryAfterS: number) =>
    new AuthError(
      429,
      'over_email_send_rate_limit',
      `For security purposes, you can only request this after ${retryAfterS} seconds.`,
      {},
      { 'retry-after': String(retryAfterS) },
    ),
  userAlreadyExists: () => new AuthError(422, 'user_already_exists', 'User already registered'),
  weakPassword: (reasons: string[], message: string) =>
    new AuthError(422, 'weak_password', message, { weak_password: { reasons } }),
  badJwt: (message = 'invalid JWT') => new AuthError(401, 'bad_jwt', message),
  sessionNotFound: () =>
    new AuthError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist'),
  refreshTokenNotFound: () =>
    new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found'),
  refreshTokenAlreadyUsed: () =>
    new AuthError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used'),
  notAdmin: () => new AuthError(403, 'not_admin', 'User not allowed'),
  userNotFound: () => new AuthError(404, 'user_not_found', 'User not found'),
  userBanned: () => new AuthError(400, 'user_banned', 'User is banned'),
  rateLimited: (retryAfterS: number) =>
    new AuthError(
      429,
      'over_request_rate_limit',
      'Request rate limit reached',
      {},
      {
        'retry-after': String(retryAfterS),
      },
    ),
};
