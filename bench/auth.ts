/**
 * bench/auth: password sign-in throughput (`POST /auth/v1/token?grant_type=password`) against
 * the raw argon2id verify rate measured in the same run with the same concurrency (the hash
 * dominates a sign-in), and refresh-token throughput (`grant_type=refresh_token`, each token
 * used once) with p50/p99. Load generators run in a child process (bench/rest-load).
 *   DATABASE_URL / REDIS_URL optional; BENCH_CONNECTIONS (16), BENCH_DURATION_S (10)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashToken } from '@baseplate/auth';
import { connectionUrl, projectDbName, withClient } from '@baseplate/database';
import { hashPassword } from '@baseplate/security';
import { adminUrl, createBenchProject, json, runLoad, startBenchPlatform } from './platform';
import type { HttpLoad, LoadResult } from './rest-load';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
/** Refresh tokens made ahead: more than the run can use. */
const TOKENS = 120_000;
const SESSIONS = 1_000;

const fmt = (label: string, r: LoadResult) =>
  `${label.padEnd(26)} ${r.rps.toFixed(0).padStart(6)} /s   p50 ${r.p50.toFixed(1).padStart(7)} ms   p99 ${r.p99
    .toFixed(1)
    .padStart(7)} ms   (${r.requests} done, ${r.errors} errors)`;

async function main(): Promise<void> {
  const platform = await startBenchPlatform({ AUTH_RATE_LIMIT_PER_MINUTE: '1000000' });
  const { controlUrl, dataUrl } = platform;
  let ref: string | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bench-auth-'));
  try {
    const project = await createBenchProject(platform);
    ref = project.ref;
    const token = project.token;
    await json(`${controlUrl}/v1/projects/${ref}/config/auth`, 'PATCH', {
      token,
      body: { mailer_autoconfirm: true },
    });
    const keys = (await json(`${controlUrl}/v1/projects/${ref}/api-keys`, 'GET', { token }))
      .body as unknown as Array<{ name: string; api_key: string }>;
    const anon = keys.find((k) => k.name === 'anon')!.api_key;
    const base = `${dataUrl}/projects/${ref}/auth/v1`;
    const user = { email: 'signin@example.com', password: 'bench-password-1' };
    // The autoconfirm change reaches the data plane through the context invalidation.
    for (;;) {
      const settings = await json(`${base}/settings`, 'GET', { headers: { apikey: anon } });
      if (settings.body.mailer_autoconfirm === true) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const up = await json(`${base}/signup`, 'POST', { body: user, headers: { apikey: anon } });
    if (up.status !== 200) throw new Error(`signup failed: ${JSON.stringify(up.body)}`);

    // Refresh tokens made ahead, straight into the project database (as a Supabase import
    // would): each request below uses one once.
    const db = connectionUrl(adminUrl, projectDbName(ref));
    const tokens = Array.from({ length: TOKENS }, () => randomBytes(16).toString('base64url'));
    await withClient(db, async (c) => {
      const { rows } = await c.query<{ id: string }>('SELECT id FROM auth.users LIMIT 1');
      const userId = rows[0]!.id;
      const sessions = await c.query<{ id: string }>(
        'INSERT INTO auth.sessions (user_id) SELECT $1 FROM generate_series(1, $2) RETURNING id',
        [userId, SESSIONS],
      );
      const ids = sessions.rows.map((r) => r.id);
      for (let i = 0; i < TOKENS; i += 10_000) {
        const chunk = tokens.slice(i, i + 10_000);
        await c.query(
          `INSERT INTO auth.refresh_tokens (token_hash, session_id, user_id)
           SELECT h, s::uuid, $3 FROM unnest($1::text[], $2::text[]) AS t(h, s)`,
          [chunk.map(hashToken), chunk.map((_, j) => ids[(i + j) % ids.length]!), userId],
        );
      }
    });
    const tokensFile = join(dir, 'tokens.txt');
    writeFileSync(tokensFile, tokens.join('\n'));

    const headers = { apikey: anon, 'content-type': 'application/json' };
    const signIn: HttpLoad = {
      mode: 'http',
      url: base,
      method: 'POST',
      headers,
      path: `/projects/${ref}/auth/v1/token?grant_type=password`,
      body: JSON.stringify(user),
      idMax: 1,
      connections,
      durationS,
    };
    const hash = await hashPassword(user.password);
    await runLoad({ ...signIn, durationS: 2 }); // warm-up
    const signInResult = await runLoad(signIn);
    const argonResult = await runLoad({
      mode: 'argon2',
      hash,
      password: user.password,
      connections,
      durationS,
    });
    const refresh = await runLoad({
      ...signIn,
      path: `/projects/${ref}/auth/v1/token?grant_type=refresh_token`,
      body: '{"refresh_token":"{token}"}',
      tokensFile,
      connections: 50,
    });
    console.log(fmt('sign-in (password grant)', signInResult));
    console.log(fmt('raw argon2id verify', argonResult));
    console.log(`ratio sign-in / raw verify: ${(signInResult.rps / argonResult.rps).toFixed(2)}`);
    console.log(fmt('refresh (rotation)', refresh));
    console.log(
      `\nbench/auth: ${connections} connections for sign-in and argon2 (50 for refresh), ${durationS} s per run, Node ${process.version}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await platform.close(ref ? [ref] : []);
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
