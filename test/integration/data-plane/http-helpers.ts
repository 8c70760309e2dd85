export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** `fetch` against the data plane, with the JSON body parsed (every answer here is JSON). */
export const client =
  (base: string) =>
  async (path: string, init: RequestInit = {}): Promise<Reply> => {
    const res = await fetch(base + path, init);
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };

export const withKeys = (apikey?: string, bearer?: string): RequestInit => ({
  headers: {
    ...(apikey ? { apikey } : {}),
    ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
  },
});

/**
 * Auth passed: the request reached its feature. Under /rest/v1 the REST engine answers in
 * PostgREST's shape (these projects have no database, so with a 503 PGRST000), storage with a
 * 503 for the same reason; services not built yet answer with the router's 404.
 */
export function expectPassedAuth(reply: Reply): void {
  // The auth service answered (GoTrue's shape): the key was accepted.
  if (reply.body && typeof reply.body === 'object' && 'error_code' in reply.body) {
    expect(reply.body.code).not.toBe('unauthorized');
    return;
  }
  if (reply.body && typeof reply.body === 'object' && 'hint' in reply.body) {
    expect(reply.body).toMatchObject({ code: expect.stringMatching(/^(PGRST\d{3}|[0-9A-Z]{5})$/) });
    expect(reply.body).not.toMatchObject({ code: expect.stringMatching(/^PGRST3/) });
    return;
  }
  // The functions service looked the function up: the key was accepted.
  if (reply.status === 404 && /^Function \S+ not found$/.test(String(reply.body?.error))) return;
  // Storage (and auth) reached the project database, which these projects do not have.
  if (reply.status === 503) {
    expect(reply.body).toMatchObject({ code: 'service_unavailable' });
    return;
  }
  expect(reply.status).toBe(404);
  expect(reply.body).toMatchObject({ error: 'Not Found', code: 'not_found' });
}

export function expectUnauthorized(reply: Reply): void {
  expect(reply.status).toBe(401);
  expect(reply.body).toMatchObject({ error: 'Unauthorized', code: 'unauthorized' });
  expect(typeof reply.body.message).toBe('string');
}
