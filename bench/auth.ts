/**
 * bench/auth: password sign-in throughput (`POST /auth/v1/token?grant_type=password`) against
 * the raw argon2id verify rate measured in the same run with the same concurrency (the hash
 * dominates a sign-in), and refresh-token throughput (`grant_type=refresh_token`, each token
 * used once) with p50/p99. Load generators run in a child process (bench/rest-load).
 * The three measurements alternate in rounds, so a neighbour's load on a shared machine hits
 * both sides of the ratio alike; each round's figures are printed, then the totals and the
 * spread between rounds.
 *   DATABASE_URL / REDIS_URL optional; BENCH_CONNECTIONS (16), BENCH_DURATION_S (10),
 *   BENCH_ROUNDS (3)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashToken } from '@baseplate/auth';
import { connectionUrl, projectDbName, withClient } from '@baseplate/database';
import { hashPassword } from '@baseplate/security';
import {
  adminUrl,
  createBenchProject,
  json,
  runBench,
  runLoad,
  startBenchPlatform,
} from './platform';
import type { Argon2Load, HttpLoad, LoadResult } from './rest-load';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** Refresh tokens made ahead: more than the run can use (6,000 a second). */
const TOKENS = rounds * durationS * 6_000;
const SESSIONS = 1_000;

const fmt = (label: string, r: LoadResult) =>
  `${label.padEnd(26)} ${r.rps.toFixed(0).padStart(6)} /s   p50 ${r.p50.toFixed(1).padStart(7)} ms   p99 ${r.p99
    .toFixed(1)
    .padStart(7)} ms   (${r.requests} done, ${r.errors} errors)`;
const range = (values: number[], digits: number) =>
  `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

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
    // One file per round: each round's refreshes use tokens no earlier round has used.
    const perRound = Math.floor(TOKENS / rounds);
    const tokensFiles = Array.from({ length: rounds }, (_, i) => {
      const file = join(dir, `tokens-${i + 1}.txt`);
      writeFileSync(file, tokens.slice(i * perRound, (i + 1) * perRound).join('\n'));
      return file;
    });

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
    const argon2: Argon2Load = {
      mode: 'argon2',
      hash,
      password: user.password,
      connections,
      durationS,
    };
    const refresh: HttpLoad = {
      ...signIn,
      path: `/projects/${ref}/auth/v1/token?grant_type=refresh_token`,
      body: '{"refresh_token":"{token}"}',
      connections: 50,
    };
    await runLoad({ ...signIn, durationS: 2 }); // warm-up
    const results: Array<{ signIn: LoadResult; argon2: LoadResult; refresh: LoadResult }> = [];
    for (let round = 1; round <= rounds; round++) {
      // Every other round the hash goes first: a drift in the machine's load evens out.
      let signInResult: LoadResult;
      let argonResult: LoadResult;
      if (round % 2 === 1) {
        signInResult = await runLoad(signIn);
        argonResult = await runLoad(argon2);
      } else {
        argonResult = await runLoad(argon2);
        signInResult = await runLoad(signIn);
      }
      const refreshResult = await runLoad({ ...refresh, tokensFile: tokensFiles[round - 1]! });
      results.push({ signIn: signInResult, argon2: argonResult, refresh: refreshResult });
      console.log(`round ${round}`);
      console.log(fmt('  sign-in (password grant)', signInResult));
      console.log(fmt('  raw argon2id verify', argonResult));
      console.log(
        `  ratio sign-in / raw verify: ${(signInResult.rps / argonResult.rps).toFixed(2)}`,
      );
      console.log(fmt('  refresh (rotation)', refreshResult));
    }
    const rates = (pick: (r: (typeof results)[number]) => LoadResult) =>
      results.map((r) => pick(r).rps);
    const signIns = rates((r) => r.signIn);
    const verifies = rates((r) => r.argon2);
    const ratio = signIns.reduce((a, b) => a + b) / verifies.reduce((a, b) => a + b);
    const ratios = signIns.map((rps, i) => rps / verifies[i]!);
    const refreshRates = rates((r) => r.refresh);
    const p50s = results.map((r) => r.refresh.p50);
    const p99s = results.map((r) => r.refresh.p99);
    console.log(`\nover ${rounds} rounds`);
    console.log(
      `  sign-in / raw verify: ${ratio.toFixed(2)} (rounds ${range(ratios, 2)}); ` +
        `sign-in ${range(signIns, 0)}/s, raw verify ${range(verifies, 0)}/s`,
    );
    console.log(
      `  refresh: median ${median(refreshRates).toFixed(0)}/s (rounds ${range(refreshRates, 0)}), ` +
        `p50 ${range(p50s, 0)} ms, p99 ${range(p99s, 0)} ms`,
    );
    console.log(
      `\nbench/auth: ${connections} connections for sign-in and argon2 (50 for refresh), ${durationS} s per measurement, ${rounds} rounds, Node ${process.version}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await platform.close(ref ? [ref] : []);
  }
}

runBench(main);
