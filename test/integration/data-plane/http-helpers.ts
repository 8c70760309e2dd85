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

/** Auth passed: no feature route exists yet, so the request reaches the router's 404. */
export function expectPassedAuth(reply: Reply): void {
  expect(reply.status).toBe(404);
  expect(reply.body).toMatchObject({ error: 'Not Found', code: 'not_found' });
}

export function expectUnauthorized(reply: Reply): void {
  expect(reply.status).toBe(401);
  expect(reply.body).toMatchObject({ error: 'Unauthorized', code: 'unauthorized' });
  expect(typeof reply.body.message).toBe('string');
}
