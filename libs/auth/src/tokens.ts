import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { JWT_ISSUER, sha256Hex } from '@baseplate/security';
import type { AuthUser } from './users';

export interface AccessTokenInput {
  /** The project's JWT secret (never logged). */
  secret: string;
  ref: string;
  user: AuthUser;
  sessionId: string;
  /** Lifetime in seconds: the project's `jwt_exp` (default 3600). */
  expiresIn: number;
  /** Unix seconds; defaults to now. */
  issuedAt?: number;
  /** How the session was authenticated (`amr`): password, otp, recovery, invite... */
  method?: string;
}

export interface IssuedAccessToken {
  token: string;
  expiresAt: number;
}

/**
 * A user access token as GoTrue issues it (HS256 with the project's secret), plus `ref` so
 * the data plane can find the project from the token alone.
 */
export async function issueAccessToken(input: AccessTokenInput): Promise<IssuedAccessToken> {
  const iat = input.issuedAt ?? Math.floor(Date.now() / 1000);
  const exp = iat + input.expiresIn;
  const { user } = input;
  const token = await new SignJWT({
    email: user.email,
    phone: user.phone ?? '',
    role: 'authenticated',
    aal: 'aal1',
    amr: [{ method: input.method ?? 'password', timestamp: iat }],
    session_id: input.sessionId,
    is_anonymous: user.is_anonymous,
    app_metadata: user.app_metadata,
    user_metadata: user.user_metadata,
    ref: input.ref,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(JWT_ISSUER)
    .setSubject(user.id)
    .setAudience('authenticated')
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(input.secret));
  return { token, expiresAt: exp };
}

/** An opaque refresh token (128 bits, base64url) and the hash the database keeps. */
export function newRefreshToken(): { token: string; hash: string } {
  const token = randomBytes(16).toString('base64url');
  return { token, hash: hashToken(token) };
}

/** Tokens the database keeps (refresh and one-time) are stored as SHA-256 hex. */
export const hashToken = (token: string): string => sha256Hex(token);
