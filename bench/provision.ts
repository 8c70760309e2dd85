/**
 * bench/provision: time from POST /v1/projects to ACTIVE_HEALTHY, 20 projects one after
 * another, against two baselines measured in the same run on the same PostgreSQL:
 *   - naive:  CREATE DATABASE (empty) + apply every project migration (what provisioning
 *             costs without a template)
 *   - floor:  CREATE DATABASE ... TEMPLATE alone (the copy our path cannot beat)
 * Runs on its own control database and template, and drops everything it made.
 *   DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL, BENCH_PROJECTS (20)
 */
import { performance } from 'node:perf_hooks';
import { connectionUrl, quoteIdent, runMigrations, withClient } from '@baseplate/database';
import { adminUrl, json, runBench, startBenchPlatform } from './platform';

const count = Number(process.env.BENCH_PROJECTS ?? 20);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (ms: number) => `${ms.toFixed(0).padStart(6)} ms`;

async function measureBaselines(
  id: string,
  templateDb: string,
): Promise<{ naive: number[]; floor: number[] }> {
  const naive: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < count; i++) {
    const a = `bp_bench_${id}_naive_${i}`;
    const b = `bp_bench_${id}_floor_${i}`;
    let t = performance.now();
    await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${quoteIdent(a)}`));
    await withClient(connectionUrl(adminUrl, a), (c) => runMigrations(c, 'project'));
    naive.push(performance.now() - t);
    t = performance.now();
    await withClient(adminUrl, (c) =>
      c.query(`CREATE DATABASE ${quoteIdent(b)} TEMPLATE ${quoteIdent(templateDb)}`),
    );
    floor.push(performance.now() - t);
    await withClient(adminUrl, async (c) => {
      await c.query(`DROP DATABASE ${quoteIdent(a)}`);
      await c.query(`DROP DATABASE ${quoteIdent(b)}`);
    });
  }
  return { naive, floor };
}

async function main(): Promise<void> {
  const platform = await startBenchPlatform();
  const base = platform.controlUrl;
  const refs: string[] = [];
  try {
    const email = `bench-${platform.id}@example.com`;
    const account = { email, password: 'benchmark password' };
    await json(`${base}/v1/signup`, 'POST', { body: account });
    const login = await json(`${base}/v1/login`, 'POST', { body: account });
    const token = login.body.access_token as string;

    const ours: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      const created = await json(`${base}/v1/projects`, 'POST', {
        token,
        body: { name: `bench ${i}` },
      });
      const ref = created.body.id as string;
      refs.push(ref);
      for (;;) {
        const got = await json(`${base}/v1/projects/${ref}`, 'GET', { token });
        if (got.body.status === 'ACTIVE_HEALTHY') break;
        if (got.body.status === 'INIT_FAILED')
          throw new Error(`${ref}: ${String(got.body.status_reason)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      ours.push(performance.now() - t);
    }
    const { naive, floor } = await measureBaselines(platform.id, platform.templateDb);

    const row = (label: string, xs: number[]) =>
      console.log(`${label.padEnd(46)}${fmt(median(xs))} ${fmt(Math.max(...xs))}`);
    console.log(
      `bench/provision: ${count} projects, one after another (PostgreSQL at ${new URL(adminUrl).host})`,
    );
    console.log(`${''.padEnd(46)}${'median'.padStart(9)} ${'worst'.padStart(9)}`);
    row('POST /v1/projects -> ACTIVE_HEALTHY', ours);
    row('baseline naive: empty db + project migrations', naive);
    row('baseline floor: CREATE DATABASE ... TEMPLATE', floor);
    const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
    console.log(
      `ratio of medians: ours/naive ${ratio(ours, naive)}, ours/floor ${ratio(ours, floor)}`,
    );
    console.log(`target median < 1000 ms: ${median(ours) < 1000 ? 'met' : 'NOT met'}`);
  } finally {
    await platform.close(refs);
  }
}

runBench(main);
