import type { IncomingMessage } from 'node:http';

/** Where the project ref of a request came from, in the order resolution tries them. */
export type RefSource = 'path' | 'functions-path' | 'apikey' | 'bearer';

export interface PathRef {
  /** As written in the URL; validated later (an invalid ref is a 404, not a rewrite failure). */
  ref: string;
  source: Extract<RefSource, 'path' | 'functions-path'>;
}

export interface RewrittenUrl {
  url: string;
  pathRef?: PathRef;
}

// `/projects/<ref>` followed by the end, a slash, a query or a fragment.
const PROJECT_PREFIX = /^\/projects\/([^/?#]+)(?=[/?#]|$)/;
// Functions path form A: `/functions/v1/<ref>/<name>`. Only a ref-shaped segment followed
// by a name counts, so `/functions/v1/<name>` (form B after the rewrite) is left alone.
const FUNCTIONS_FORM_A = /^\/functions\/v1\/([a-z0-9]{20})(?=\/[^/?#])/;

/**
 * Strips `/projects/<ref>` (or the ref of functions path form A) from a URL, so every
 * feature registers its routes once (`/rest/v1/...`) and serves both path styles.
 */
export function rewriteProjectUrl(url: string): RewrittenUrl {
  const project = PROJECT_PREFIX.exec(url);
  if (project) {
    const rest = url.slice(project[0].length);
    return {
      url: rest.startsWith('/') ? rest : `/${rest}`,
      pathRef: { ref: project[1]!, source: 'path' },
    };
  }
  const fn = FUNCTIONS_FORM_A.exec(url);
  if (fn) {
    return {
      url: `/functions/v1${url.slice(fn[0].length)}`,
      pathRef: { ref: fn[1]!, source: 'functions-path' },
    };
  }
  return { url };
}

// Fastify hands rewriteUrl the raw request; the ref travels on it to the resolution hook.
// The URL as sent is kept too: `originalUrl` is overwritten by middie with the rewritten one.
const PATH_REF = Symbol('baseplate.pathRef');
const SENT_URL = Symbol('baseplate.sentUrl');
type RawWithRef = IncomingMessage & { [PATH_REF]?: PathRef; [SENT_URL]?: string };

/** The `rewriteUrl` option of the Fastify adapter. */
export function rewriteRawUrl(req: IncomingMessage): string {
  const sent = req.url ?? '/';
  const { url, pathRef } = rewriteProjectUrl(sent);
  if (pathRef) {
    (req as RawWithRef)[PATH_REF] = pathRef;
    (req as RawWithRef)[SENT_URL] = sent;
  }
  return url;
}

export const pathRefOf = (req: IncomingMessage): PathRef | undefined =>
  (req as RawWithRef)[PATH_REF];

/** The URL the client sent, before the project prefix was stripped. */
export const sentUrlOf = (req: IncomingMessage): string =>
  (req as RawWithRef)[SENT_URL] ?? req.url ?? '/';

const SERVICE_PREFIXES = ['/rest/v1', '/storage/v1', '/functions/v1', '/auth'];

const pathOnly = (url: string): string => url.split(/[?#]/, 1)[0]!;

/**
 * True for the project-scoped services. `/auth` as a whole covers `/auth/v1/...` and the
 * short paths (`/auth/signup`, `/auth/login`, `/auth/me`, `/auth/logout`).
 */
export function isProjectServicePath(url: string): boolean {
  const path = pathOnly(url);
  return SERVICE_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}
