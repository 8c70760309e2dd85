import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { StorageErrors } from './errors';

/** Signed upload URLs live two hours, as storage-api's. */
export const UPLOAD_URL_TTL_S = 7200;
const MAX_TTL_S = 10 * 365 * 86400;

const key = (secret: string) => new TextEncoder().encode(secret);

/**
 * Tokens of signed URLs: HS256 with the project's secret, bound to one `<bucket>/<name>` and
 * one use (download or upload). They carry no `role`, so the data plane never takes one for
 * an API key, and an API key (no `url`) is never taken for one.
 */
export async function signObjectToken(
  secret: string,
  input: {
    url: string;
    use: 'download' | 'upload';
    expiresIn: number;
    owner?: string | null;
    upsert?: boolean;
  },
): Promise<string> {
  if (!Number.isInteger(input.expiresIn) || input.expiresIn < 1 || input.expiresIn > MAX_TTL_S) {
    throw StorageErrors.invalidRequest('expiresIn must be a positive number of seconds');
  }
  return new SignJWT({
    url: input.url,
    use: input.use,
    ...(input.owner ? { owner: input.owner } : {}),
    ...(input.upsert ? { upsert: true } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + input.expiresIn)
    .sign(key(secret));
}

/** Checks a signed URL's token against the object it is used for; 400 InvalidJWT otherwise. */
export async function verifyObjectToken(
  secret: string,
  token: unknown,
  expected: { url: string; use: 'download' | 'upload' },
): Promise<{ owner: string | null; upsert: boolean }> {
  if (typeof token !== 'string' || token === '')
    throw StorageErrors.invalidSignature('Missing token');
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ['HS256'] });
    if (payload.url !== expected.url || payload.use !== expected.use) {
      throw StorageErrors.invalidSignature('Invalid signature: the token is for another object');
    }
    return {
      owner: typeof payload.owner === 'string' ? payload.owner : null,
      upsert: payload.upsert === true,
    };
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) throw StorageErrors.invalidSignature('jwt expired');
    if (e instanceof Error && e.name === 'StorageError') throw e;
    throw StorageErrors.invalidSignature('Invalid signature');
  }
}
