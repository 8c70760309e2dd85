import { Errors } from '@baseplate/errors';
import { verifyProjectJwt, VerifiedClaims } from '@baseplate/security';
import { ApiRole } from '@baseplate/database';
import { Credentials, isApiRole } from './credentials';

export interface VerifiedCaller {
  role: ApiRole;
  claims: VerifiedClaims & { role: ApiRole };
}

export interface VerifyOptions {
  /** Routes marked public accept a request with no credentials at all, as `anon`. */
  credentialsOptional?: boolean;
}

// Verified tokens, as PostgREST caches them: an HMAC check per request is measurable on a
// busy data plane. Keyed by secret and token, so a rotated secret misses; an entry lives
// until the token's own expiry (plus the 30 s skew verification allows), five minutes at most.
const VERIFIED_CACHE_MAX = 10_000;
const VERIFIED_CACHE_TTL_MS = 5 * 60_000;
const verified = new Map<string, { claims: VerifiedClaims; until: number }>();

async function verifyJwtCached(token: string, secret: string): ReturnType<typeof verifyProjectJwt> {
  const key = `${secret}\u0000${token}`;
  const now = Date.now();
  const hit = verified.get(key);
  if (hit && now < hit.until) return { ok: true, claims: hit.claims };
  if (hit) verified.delete(key);
  const result = await verifyProjectJwt(token, secret);
  if (result.ok) {
    const exp = typeof result.claims.exp === 'number' ? (result.claims.exp + 30) * 1000 : now;
    const until = Math.min(exp, now + VERIFIED_CACHE_TTL_MS);
    if (until > now) {
      if (verified.size >= VERIFIED_CACHE_MAX) verified.delete(verified.keys().next().value!);
      verified.set(key, { claims: result.claims, until });
    }
  }
  return result;
}

async function verifyToken(
  token: string,
  ref: string,
  secret: string,
  what: 'API key' | 'JWT',
): Promise<VerifiedCaller['claims']> {
  const result = await verifyJwtCached(token, secret);
  if (!result.ok) {
    throw Errors.unauthorized(
      result.reason === 'expired' ? `${what} has expired` : `Invalid ${what}`,
    );
  }
  // A token signed with this secret but naming another project (or none) is still refused:
  // the ref claim is what binds a key to exactly one project.
  if (result.claims.ref !== ref)
    throw Errors.unauthorized(`${what} does not belong to this project`);
  if (!isApiRole(result.claims.role))
    throw Errors.unauthorized(`${what} has a role that is not allowed`);
  return result.claims as VerifiedCaller['claims'];
}

/**
 * Verifies every credential given (a bad one is a 401, never a fallback to anon). The
 * Bearer token, when present, is the caller (a user's access token or a key); otherwise
 * the apikey is.
 */
export async function verifyCredentials(
  creds: Credentials,
  ref: string,
  secret: string,
  options: VerifyOptions = {},
): Promise<VerifiedCaller> {
  if (creds.malformedAuthorization) {
    throw Errors.unauthorized('Authorization header must be "Bearer <token>"');
  }
  const verified: VerifiedCaller['claims'][] = [];
  if (creds.apikey !== undefined) {
    verified.push(await verifyToken(creds.apikey, ref, secret, 'API key'));
  }
  // supabase-js sends the key as Bearer too when there is no session: verify it once.
  if (creds.bearer !== undefined && creds.bearer !== creds.apikey) {
    verified.push(await verifyToken(creds.bearer, ref, secret, 'JWT'));
  }
  const claims = verified.at(-1);
  if (claims) return { role: claims.role, claims };
  if (options.credentialsOptional) return { role: 'anon', claims: { role: 'anon' } };
  throw Errors.unauthorized('No API key found in request');
}
