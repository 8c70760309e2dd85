import type { IncomingHttpHeaders } from 'node:http';
import { API_ROLES, ApiRole } from '@baseplate/database';
import { peekClaims } from '@baseplate/security';
import { PathRef, RefSource } from './project-path';

/** The credentials a request carries, as written; nothing here is verified yet. */
export interface Credentials {
  apikey?: string;
  bearer?: string;
  /** An Authorization header that is not `Bearer <token>`: always a 401, never ignored. */
  malformedAuthorization?: boolean;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

export function readCredentials(headers: IncomingHttpHeaders): Credentials {
  const apikey = single(headers.apikey)?.trim();
  const authorization = single(headers.authorization);
  const creds: Credentials = {};
  if (apikey !== undefined) creds.apikey = apikey;
  if (authorization !== undefined) {
    const match = BEARER.exec(authorization.trim());
    if (match) creds.bearer = match[1]!;
    else creds.malformedAuthorization = true;
  }
  return creds;
}

export const hasCredentials = (creds: Credentials): boolean =>
  creds.apikey !== undefined || creds.bearer !== undefined || creds.malformedAuthorization === true;

/** The `ref` claim of a token, read WITHOUT verification: it only chooses whose secret to verify with. */
export function peekRef(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const ref = peekClaims(token)?.ref;
  return typeof ref === 'string' && ref !== '' ? ref : undefined;
}

/** ARCHITECTURE §4: the path, else the apikey's `ref` claim, else the Bearer token's. */
export function resolveRef(
  pathRef: PathRef | undefined,
  creds: Credentials,
): { ref: string; source: RefSource } | undefined {
  if (pathRef) return pathRef;
  const fromKey = peekRef(creds.apikey);
  if (fromKey) return { ref: fromKey, source: 'apikey' };
  const fromBearer = peekRef(creds.bearer);
  if (fromBearer) return { ref: fromBearer, source: 'bearer' };
  return undefined;
}

/** Only these roles may be assumed; `postgres` or any other claim value is refused. */
export const isApiRole = (role: unknown): role is ApiRole =>
  typeof role === 'string' && (API_ROLES as readonly string[]).includes(role);
