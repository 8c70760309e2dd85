import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request, waitFor } from '../../support/http';
import { clientFor, createTestClient, type Client } from '../rest/compat/supabase-client';
import { bootRestFixture, type RestFixture } from '../rest/fixture';

/**
 * Row Level Security decides storage access, as in Supabase: with owner policies on
 * storage.objects, user A cannot read, list, replace or delete user B's files; anon cannot read
 * a private bucket; the service key can do everything; another project's keys reach nothing.
 */
describe('storage under Row Level Security', () => {
  let f: RestFixture;
  let service: Client;
  let alice: Client;
  let bob: Client;
  let aliceId: string;
  let bobId: string;
  const base = () => `${f.platform.data}/projects/${f.project.ref}`;

  const signedIn = async (email: string): Promise<[Client, string]> => {
    const created = await service.auth.admin.createUser({
      email,
      password: 'secret-1',
      email_confirm: true,
    });
    expect(created.error).toBeNull();
    const client = createTestClient(base(), f.project.anonKey);
    const { data, error } = await client.auth.signInWithPassword({ email, password: 'secret-1' });
    expect(error).toBeNull();
    return [client, data.user!.id];
  };

  beforeAll(async () => {
    f = await bootRestFixture(`
      CREATE POLICY "own files: read" ON storage.objects FOR SELECT TO authenticated
        USING (bucket_id = 'avatars' AND owner = auth.uid());
      CREATE POLICY "own folder: upload" ON storage.objects FOR INSERT TO authenticated
        WITH CHECK (bucket_id = 'avatars' AND (storage.foldername(name))[1] = auth.uid()::text);
      CREATE POLICY "own files: replace" ON storage.objects FOR UPDATE TO authenticated
        USING (bucket_id = 'avatars' AND owner = auth.uid());
      CREATE POLICY "own files: delete" ON storage.objects FOR DELETE TO authenticated
        USING (bucket_id = 'avatars' AND owner = auth.uid());
    `);
    service = clientFor(f, 'service');
    expect((await service.storage.createBucket('avatars')).error).toBeNull();
    [alice, aliceId] = await signedIn('alice@example.com');
    [bob, bobId] = await signedIn('bob@example.com');
  });
  afterAll(() => f?.platform.close());

  it('lets users upload into their own folder only, owned by them', async () => {
    const mine = await alice.storage
      .from('avatars')
      .upload(`${aliceId}/me.txt`, 'alice', { contentType: 'text/plain' });
    expect(mine.error).toBeNull();
    const intoBob = await alice.storage
      .from('avatars')
      .upload(`${bobId}/evil.txt`, 'x', { contentType: 'text/plain' });
    expect(intoBob.error).toMatchObject({ statusCode: '403' });
    expect(
      (
        await bob.storage
          .from('avatars')
          .upload(`${bobId}/me.txt`, 'bob', { contentType: 'text/plain' })
      ).error,
    ).toBeNull();

    const info = await service.storage.from('avatars').info(`${aliceId}/me.txt`);
    expect(info.error).toBeNull();
    const rows = await f.sql(
      `SELECT owner::text FROM storage.objects WHERE name = '${aliceId}/me.txt'`,
    );
    expect(rows).toEqual([{ owner: aliceId }]);
    // The refused upload stored nothing.
    expect((await service.storage.from('avatars').exists(`${bobId}/evil.txt`)).data).toBe(false);
  });

  it("hides another user's files from download, listing, signing, replacement and deletion", async () => {
    const path = `${bobId}/me.txt`;
    const alicesView = alice.storage.from('avatars');
    expect((await alicesView.download(path)).error).toMatchObject({ status: 404 });
    expect((await alicesView.list(bobId)).data).toEqual([]);
    expect((await alicesView.createSignedUrl(path, 60)).error).toMatchObject({ statusCode: '404' });
    const replace = await alicesView.update(path, 'pwned', { contentType: 'text/plain' });
    expect(replace.error).toMatchObject({ statusCode: '404' });
    const upsert = await alicesView.upload(path, 'pwned', {
      contentType: 'text/plain',
      upsert: true,
    });
    expect(upsert.error).toMatchObject({ statusCode: '403' });
    const removed = await alicesView.remove([path]);
    expect(removed.data).toEqual([]);
    const moved = await alicesView.move(path, `${aliceId}/stolen.txt`);
    expect(moved.error).toMatchObject({ statusCode: '404' });

    // The /authenticated/ form follows the same policies.
    const own = await fetch(`${base()}/storage/v1/object/authenticated/avatars/${bobId}/me.txt`, {
      headers: {
        apikey: f.project.anonKey,
        authorization: `Bearer ${(await bob.auth.getSession()).data.session!.access_token}`,
      },
    });
    expect([own.status, await own.text()]).toEqual([200, 'bob']);
    const foreign = await fetch(
      `${base()}/storage/v1/object/authenticated/avatars/${bobId}/me.txt`,
      {
        headers: {
          apikey: f.project.anonKey,
          authorization: `Bearer ${(await alice.auth.getSession()).data.session!.access_token}`,
        },
      },
    );
    expect(foreign.status).toBe(404);

    // Bob's file is untouched; he sees only his own.
    expect(await (await bob.storage.from('avatars').download(path)).data!.text()).toBe('bob');
    const bobsList = await bob.storage.from('avatars').list('');
    expect(bobsList.data?.map((e) => e.name)).toEqual([bobId]);
    expect((await alice.storage.from('avatars').list(aliceId)).data?.map((e) => e.name)).toEqual([
      'me.txt',
    ]);
  });

  it('keeps a private bucket from anon and non-admin bucket management, and lets the service key in', async () => {
    const anon = createTestClient(base(), f.project.anonKey);
    expect((await anon.storage.from('avatars').download(`${aliceId}/me.txt`)).error).toMatchObject({
      status: 404,
    });
    expect((await anon.storage.from('avatars').list(aliceId)).data).toEqual([]);
    const upload = await anon.storage
      .from('avatars')
      .upload('anon.txt', 'x', { contentType: 'text/plain' });
    expect(upload.error).toMatchObject({ statusCode: '403' });
    const noHeader = await fetch(`${base()}/storage/v1/object/avatars/${aliceId}/me.txt`);
    expect(noHeader.status).toBe(401);
    const notPublic = await fetch(`${base()}/storage/v1/object/public/avatars/${aliceId}/me.txt`);
    expect(notPublic.status).toBe(404);

    // No policy on storage.buckets: users can neither see nor create buckets.
    expect((await alice.storage.listBuckets()).data).toEqual([]);
    expect((await alice.storage.createBucket('mine')).error).toMatchObject({ statusCode: '403' });
    expect((await alice.storage.deleteBucket('avatars')).error).toMatchObject({
      statusCode: '404',
    });

    expect(
      await (await service.storage.from('avatars').download(`${aliceId}/me.txt`)).data!.text(),
    ).toBe('alice');
    const all = await service.storage.from('avatars').list('');
    expect(all.data?.map((e) => e.name).sort()).toEqual([aliceId, bobId].sort());
  });

  it("never serves one project's files to another project's keys", async () => {
    const other = await f.platform.newProject(f.token, 'other');
    const headers = { apikey: other.serviceKey, authorization: `Bearer ${other.serviceKey}` };
    const viaPath = await request(base(), 'GET', `/storage/v1/object/avatars/${aliceId}/me.txt`, {
      headers,
    });
    expect(viaPath.status).toBe(401);
    const viaKey = await request(
      f.platform.data,
      'GET',
      `/storage/v1/object/avatars/${aliceId}/me.txt`,
      { headers },
    );
    expect(viaKey.status).toBe(404);
    const signed = await service.storage.from('avatars').createSignedUrl(`${aliceId}/me.txt`, 60);
    const token = new URL(signed.data!.signedUrl).searchParams.get('token');
    const replayed = await fetch(
      `${f.platform.data}/projects/${other.ref}/storage/v1/object/sign/avatars/${aliceId}/me.txt?token=${token}`,
    );
    expect(replayed.status).toBe(400);
  });

  it("removes a deleted project's files from disk", async () => {
    const doomed = await f.platform.newProject(f.token, 'doomed');
    const client = createTestClient(`${f.platform.data}/projects/${doomed.ref}`, doomed.serviceKey);
    await client.storage.createBucket('tmp');
    expect(
      (await client.storage.from('tmp').upload('a.txt', 'bytes', { contentType: 'text/plain' }))
        .error,
    ).toBeNull();
    const dir = join(f.platform.config.storageDir, doomed.ref);
    expect(existsSync(dir)).toBe(true);
    const deleted = await request(f.platform.control, 'DELETE', `/v1/projects/${doomed.ref}`, {
      token: f.token,
    });
    expect(deleted.status).toBe(200);
    await waitFor('project files to go', async () => !existsSync(dir));
  });
});
