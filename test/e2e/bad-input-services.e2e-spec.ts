import { bootRestFixture, type RestFixture } from './rest/fixture';

/**
 * Malformed requests to the storage, auth email and function endpoints: every one is a 4xx
 * JSON answer with a string `error`, never a 500 or a hang.
 */
describe('bad input to storage, auth email flows and functions', () => {
  let f: RestFixture;
  beforeAll(async () => {
    f = await bootRestFixture();
    const create = await fetch(`${f.platform.data}/projects/${f.project.ref}/storage/v1/bucket`, {
      method: 'POST',
      headers: service('application/json'),
      body: JSON.stringify({ id: 'box' }),
    });
    expect(create.status).toBe(200);
  });
  afterAll(() => f?.platform.close());

  function service(contentType?: string): Record<string, string> {
    return {
      apikey: f.project.serviceKey,
      authorization: `Bearer ${f.project.serviceKey}`,
      ...(contentType ? { 'content-type': contentType } : {}),
    };
  }

  // Five entries in every row: jest would take a missing last one for a `done` callback.
  type Case = [string, string, string, string | undefined, string | undefined];
  const data: Case[] = [
    // [what, method, path under /projects/<ref>, body, content type]
    ['bucket: body not JSON', 'POST', '/storage/v1/bucket', '{"id":', 'application/json'],
    ['bucket: id not a string', 'POST', '/storage/v1/bucket', '{"id": 5}', 'application/json'],
    [
      'bucket: size limit nonsense',
      'POST',
      '/storage/v1/bucket',
      '{"id":"b2","file_size_limit":"lots"}',
      'application/json',
    ],
    [
      'bucket: mime types not a list',
      'PUT',
      '/storage/v1/bucket/box',
      '{"allowed_mime_types":"image/png"}',
      'application/json',
    ],
    [
      'bucket: public not boolean',
      'PUT',
      '/storage/v1/bucket/box',
      '{"public":"yes"}',
      'application/json',
    ],
    [
      'list: negative offset',
      'POST',
      '/storage/v1/object/list/box',
      '{"offset":-1}',
      'application/json',
    ],
    [
      'list: limit not a number',
      'GET',
      '/storage/v1/object/list/box?limit=abc',
      undefined,
      undefined,
    ],
    [
      'list: prefix with ..',
      'POST',
      '/storage/v1/object/list/box',
      '{"prefix":"a/../b"}',
      'application/json',
    ],
    [
      'sign: expiresIn missing',
      'POST',
      '/storage/v1/object/sign/box/a.txt',
      '{}',
      'application/json',
    ],
    [
      'sign many: paths not a list',
      'POST',
      '/storage/v1/object/sign/box',
      '{"expiresIn":60,"paths":"a"}',
      'application/json',
    ],
    [
      'move: no source',
      'POST',
      '/storage/v1/object/move',
      '{"bucketId":"box","destinationKey":"b"}',
      'application/json',
    ],
    [
      'copy: bad bucket id',
      'POST',
      '/storage/v1/object/copy',
      '{"bucketId":"../x","sourceKey":"a","destinationKey":"b"}',
      'application/json',
    ],
    ['bulk delete: prefixes missing', 'DELETE', '/storage/v1/object/box', '{}', 'application/json'],
    [
      'upload: malformed multipart',
      'POST',
      '/storage/v1/object/box/a.txt',
      '--x\r\nnot a part',
      'multipart/form-data; boundary=x',
    ],
    [
      'upload: multipart without boundary',
      'POST',
      '/storage/v1/object/box/a.txt',
      'abc',
      'multipart/form-data',
    ],
    [
      'upload: x-metadata not base64 JSON',
      'POST',
      '/storage/v1/object/box/m.txt',
      'abc',
      'text/plain',
    ],
    [
      'signed upload: no token',
      'PUT',
      '/storage/v1/object/upload/sign/box/a.txt',
      'abc',
      'text/plain',
    ],
    ['info: missing object', 'GET', '/storage/v1/object/info/box/nope.txt', undefined, undefined],
    [
      'generate_link: unknown type',
      'POST',
      '/auth/v1/admin/generate_link',
      '{"type":"bogus","email":"a@b.co"}',
      'application/json',
    ],
    [
      'generate_link: email change without new_email',
      'POST',
      '/auth/v1/admin/generate_link',
      '{"type":"email_change_new","email":"a@b.co"}',
      'application/json',
    ],
    [
      'invite: bad email',
      'POST',
      '/auth/v1/invite',
      '{"email":"not an email"}',
      'application/json',
    ],
    [
      'resend: bad type',
      'POST',
      '/auth/v1/resend',
      '{"type":"sms","email":"a@b.co"}',
      'application/json',
    ],
    ['otp: phone', 'POST', '/auth/v1/otp', '{"phone":"+15550100"}', 'application/json'],
    ['recover: no email', 'POST', '/auth/v1/recover', '{}', 'application/json'],
  ];

  it.each(data)('%s → 4xx JSON', async (_what, method, path, body, contentType) => {
    const headers = service(contentType);
    if (_what.startsWith('upload: x-metadata')) headers['x-metadata'] = '%%%';
    const res = await fetch(`${f.platform.data}/projects/${f.project.ref}${path}`, {
      method,
      headers,
      body,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const json = (await res.json()) as { error?: unknown };
    expect(typeof json.error).toBe('string');
  });

  const control: Case[] = [
    ['deploy: body missing', 'POST', '/functions', '{"slug":"a","name":"a"}', 'application/json'],
    [
      'deploy: body not a string',
      'POST',
      '/functions',
      '{"slug":"a","name":"a","body":5}',
      'application/json',
    ],
    [
      'deploy: slug too long',
      'POST',
      '/functions',
      `{"slug":"${'a'.repeat(64)}","name":"a","body":"x"}`,
      'application/json',
    ],
    [
      'deploy: unknown field',
      'POST',
      '/functions',
      '{"slug":"a","name":"a","body":"x","extra":1}',
      'application/json',
    ],
    ['deploy: not JSON', 'POST', '/functions', '{"slug":', 'application/json'],
    ['patch: unknown function', 'PATCH', '/functions/nope', '{"name":"x"}', 'application/json'],
    ['logs: limit 0', 'GET', '/functions/nope/logs?limit=0', undefined, undefined],
    ['logs: limit abc', 'GET', '/functions/nope/logs?limit=abc', undefined, undefined],
    [
      'limits: timeout too small',
      'PATCH',
      '/config/functions',
      '{"timeout_ms":5}',
      'application/json',
    ],
    [
      'limits: memory not a number',
      'PATCH',
      '/config/functions',
      '{"memory_mb":"lots"}',
      'application/json',
    ],
    ['emails: limit 500', 'GET', '/auth/emails?limit=500', undefined, undefined],
  ];

  it.each(control)(
    'control plane %s → 4xx JSON',
    async (_what, method, path, body, contentType) => {
      const res = await fetch(`${f.platform.control}/v1/projects/${f.project.ref}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${f.token}`,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        body,
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const json = (await res.json()) as { error?: unknown };
      expect(typeof json.error).toBe('string');
    },
  );
});
