import { PostgrestError } from '../postgrest-error';
import type { Media } from './types';

interface Offer {
  type: string;
  params: Record<string, string>;
  q: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const OBJECT_TYPE = 'application/vnd.pgrst.object+json; charset=utf-8';
const OPENAPI: Media = {
  type: 'openapi',
  stripNulls: false,
  contentType: 'application/openapi+json; charset=utf-8',
};

/** Splits an Accept header into offers in client preference order (q desc, then as written). */
export function parseAccept(header: string | undefined): Offer[] {
  if (header === undefined || header.trim() === '') return [{ type: '*/*', params: {}, q: 1 }];
  const offers = header.split(',').flatMap((part, index) => {
    const [rawType, ...rawParams] = part.split(';');
    const type = (rawType ?? '').trim().toLowerCase();
    if (type === '') return [];
    const params: Record<string, string> = {};
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      params[p.slice(0, eq).trim().toLowerCase()] = p
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, '');
    }
    const q = params.q === undefined ? 1 : Number(params.q);
    return [{ type, params, q: Number.isFinite(q) ? q : 0, index }];
  });
  // Preference order: q, then the more specific type (`text/csv` before `*/*`), then as written.
  const specificity = (type: string): number => (type === '*/*' ? 0 : type.endsWith('/*') ? 1 : 2);
  return offers
    .filter((o) => o.q > 0)
    .sort((a, b) => b.q - a.q || specificity(b.type) - specificity(a.type) || a.index - b.index)
    .map(({ type, params, q }) => ({ type, params, q }));
}

function mediaFor(offer: Offer, root: boolean): Media | undefined {
  const stripNulls = offer.params.nulls === 'stripped';
  switch (offer.type) {
    case '*/*':
    case 'application/json':
      return root ? OPENAPI : { type: 'json', stripNulls: false, contentType: JSON_TYPE };
    case 'application/openapi+json':
      return root ? OPENAPI : undefined;
    case 'application/vnd.pgrst.array+json':
      return root ? undefined : { type: 'json', stripNulls, contentType: JSON_TYPE };
    case 'application/vnd.pgrst.object+json':
    case 'application/vnd.pgrst.object':
      return root ? undefined : { type: 'object', stripNulls, contentType: OBJECT_TYPE };
    case 'text/csv':
      return root
        ? undefined
        : { type: 'csv', stripNulls: false, contentType: 'text/csv; charset=utf-8' };
    default:
      return undefined;
  }
}

/**
 * Content negotiation as PostgREST does it: the first acceptable offer in the client's
 * preference order wins; none acceptable is a 406 PGRST107 naming what was asked for.
 */
export function negotiateMedia(accept: string | undefined, root = false): Media {
  const offers = parseAccept(accept);
  for (const offer of offers) {
    const media = mediaFor(offer, root);
    if (media) return media;
  }
  const asked = offers.map((o) => o.type);
  throw new PostgrestError(
    'PGRST107',
    406,
    `None of these media types are available: ${asked.join(', ')}`,
  );
}
