import { SignJWT } from 'jose';
import { Client } from 'pg';
import { JWT_ISSUER, SecretBox } from '@baseplate/security';
import type { Platform, TestProject } from '../../../support/platform';
import { request } from '../../../support/http';

/**
 * The project's JWT secret, opened from the control database the way the data plane does:
 * there is no auth service yet to issue user tokens, so tests sign them with it.
 */
export async function projectJwtSecret(platform: Platform, ref: string): Promise<string> {
  const client = new Client({ connectionString: platform.config.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ jwt_secret_enc: string | null }>(
      'SELECT jwt_secret_enc FROM projects WHERE ref = $1',
      [ref],
    );
    const sealed = rows[0]?.jwt_secret_enc;
    if (!sealed) throw new Error(`project ${ref} has no JWT secret`);
    return new SecretBox(platform.config.masterKey).open(sealed);
  } finally {
    await client.end();
  }
}

/** An access token shaped like the ones auth will issue; `claims` override the defaults. */
export function signUserToken(
  secret: string,
  ref: string,
  sub: string,
  claims: Record<string, unknown> = {},
  expiresInS = 3600,
): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub, role: 'authenticated', ref, aud: 'authenticated', ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(JWT_ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(iat + expiresInS)
    .sign(new TextEncoder().encode(secret));
}

/** SQL as the project's admin role, through the management API (as a user would). */
export async function projectSql(
  platform: Platform,
  token: string,
  project: Pick<TestProject, 'ref'>,
  query: string,
): Promise<unknown> {
  const res = await request(
    platform.control,
    'POST',
    `/v1/projects/${project.ref}/database/query`,
    { token, body: { query } },
  );
  if (res.status !== 200 && res.status !== 201) throw new Error(`SQL failed: ${res.text}`);
  return res.body;
}
