import { errors as joseErrors, jwtVerify, SignJWT, JWTPayload } from 'jose';

export const API_KEY_ROLES = ['anon', 'service_role'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];
export const JWT_ISSUER = 'baseplate';

/** API keys live ten years, like Supabase's; rotation, not expiry, retires them. */
const API_KEY_LIFETIME_S = 10 * 365 * 24 * 3600;

const secretBytes = (secret: string): Uint8Array => new TextEncoder().encode(secret);

/**
 * Signs an API key. HS256 is deterministic, so the same secret and `issuedAt` always
 * yield the same key: keys are derived on demand and never stored.
 */
export function signApiKey(
  secret: string,
  ref: string,
  role: ApiKeyRole,
  issuedAt: number,
): Promise<string> {
  return new SignJWT({ role, ref })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(JWT_ISSUER)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + API_KEY_LIFETIME_S)
    .sign(secretBytes(secret));
}

export interface VerifiedClaims extends JWTPayload {
  role?: string;
  ref?: string;
}

export type VerifyFailure = 'expired' | 'invalid';

/** Verifies an HS256 token against a project secret, with PostgREST's 30 s clock skew. */
export async function verifyProjectJwt(
  token: string,
  secret: string,
): Promise<{ ok: true; claims: VerifiedClaims } | { ok: false; reason: VerifyFailure }> {
  try {
    const { payload } = await jwtVerify(token, secretBytes(secret), {
      algorithms: ['HS256'],
      clockTolerance: 30,
    });
    return { ok: true, claims: payload as VerifiedClaims };
  } catch (e) {
    return { ok: false, reason: e instanceof joseErrors.JWTExpired ? 'expired' : 'invalid' };
  }
}

/**
 * Reads claims without verifying them. Only used to pick which project's secret to
 * verify with; nothing from an unverified token is trusted beyond that choice.
 */
export function peekClaims(token: string): VerifiedClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    return claims && typeof claims === 'object' && !Array.isArray(claims)
      ? (claims as VerifiedClaims)
      : undefined;
  } catch {
    return undefined;
  }
}
