/**
 * bench/storage: upload and download throughput of the data plane's storage API for one large
 * file, one huge file and many small files, against copying the same bytes through plain Node
 * streams on the same disk in the same run; and the platform process's RSS during the large
 * transfers (it must not grow with the file size).
 *   upload:   POST /storage/v1/object/bench/<name>, raw body streamed from a file
 *             baseline: pipeline(createReadStream(src), createWriteStream(dst))
 *   download: GET /storage/v1/object/bench/<name>, bytes discarded
 *             baseline: createReadStream(the baseline's copy), bytes discarded
 * More figures say where the time goes: the plain copy with an MD5 Transform in between (the
 * fs driver's ETag) and a bare node:http server in this process (bench/storage-bare-server: a
 * file, with and without MD5 on upload; no framework, database or policies). The client and the baselines run in a
 * child process (bench/storage-client), the servers in this one, so this process's RSS is the
 * platform's. STORAGE_DIR, the baselines' and the bare server's files share one temporary
 * directory. Every measurement runs BENCH_REPEAT times, the variants rotating which goes
 * first; one Baseplate download of each kind is hashed against its source (not timed).
 *   DATABASE_URL / REDIS_URL optional; BENCH_LARGE_MB (100), BENCH_HUGE_MB (500),
 *   BENCH_SMALL_COUNT (1000), BENCH_SMALL_KB (4), BENCH_CONCURRENCY (16, small files),
 *   BENCH_REPEAT (5); a size or count of 0 skips that part. MB here are MiB.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm, stat } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createBenchProject, json, runBench, startBenchPlatform, table } from './platform';
import { type BareServer, startBareServer } from './storage-bare-server';
import type { ClientJob, ClientResult } from './storage-client';

const MiB = 1024 * 1024;
const largeMb = Number(process.env.BENCH_LARGE_MB ?? 100);
const hugeMb = Number(process.env.BENCH_HUGE_MB ?? 500);
const smallCount = Number(process.env.BENCH_SMALL_COUNT ?? 1000);
const smallKb = Number(process.env.BENCH_SMALL_KB ?? 4);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const repeat = Number(process.env.BENCH_REPEAT ?? 5);
const BUCKET = 'bench';
const RSS_SAMPLE_MS = 20;
/** The warm-up file (not measured). */
const WARM_MB = 8;

function runClient(job: ClientJob): Promise<ClientResult> {
  return promisify(execFile)(
    process.execPath,
    [join(__dirname, 'storage-client.js'), JSON.stringify(job)],
    { maxBuffer: 1 << 20 },
  ).then(({ stdout }) => JSON.parse(stdout.trim().split('\n').pop()!) as ClientResult);
}

// --- RSS of this process -------------------------------------------------------------------

const rssNow = (): number => process.memoryUsage.rss();

/** The kernel's peak RSS since the last reset (VmHWM), or undefined off Linux. */
function kernelPeak(): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resets VmHWM to the current RSS (Linux: `5` to clear_refs); false where that is refused. */
function resetKernelPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

interface RssFigures {
  before: number;
  /** Highest of the 20 ms samples. */
  sampled: number;
  /** The kernel's high-water mark over the same span (catches spikes between samples). */
  kernel: number | undefined;
}

/** Runs `fn`, sampling this process's RSS every 20 ms and reading the kernel's peak after. */
async function withRss<T>(fn: () => Promise<T>): Promise<{ value: T; rss: RssFigures }> {
  const before = rssNow();
  const reset = resetKernelPeak();
  let sampled = before;
  const timer = setInterval(() => {
    sampled = Math.max(sampled, rssNow());
  }, RSS_SAMPLE_MS);
  try {
    const value = await fn();
    sampled = Math.max(sampled, rssNow());
    return { value, rss: { before, sampled, kernel: reset ? kernelPeak() : undefined } };
  } finally {
    clearInterval(timer);
  }
}

// --- figures --------------------------------------------------------------------------------

/** Baseplate and what it is compared with; `plain` is the target's baseline. */
type Variant = 'baseplate' | 'plain' | 'plainMd5' | 'bareNoMd5' | 'bare';

interface Measurement {
  label: string;
  unit: 'MiB/s' | 'files/s';
  /** Rates per variant, one per run. */
  rates: Partial<Record<Variant, number[]>>;
}

interface RssRow {
  label: string;
  rss: RssFigures;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const spread = (xs: number[] | undefined, digits: number, unit = ''): string =>
  xs === undefined || xs.length === 0
    ? '–'
    : `${median(xs).toFixed(digits)}${unit} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

/** Per-run ratios a / b (runs pair up: each ran next to the other). */
const ratios = (a: number[] | undefined, b: number[] | undefined): number[] | undefined =>
  a && b && a.length === b.length ? a.map((x, i) => x / b[i]!) : undefined;

const rate = (unit: Measurement['unit'], r: ClientResult): number =>
  unit === 'MiB/s' ? r.bytes / MiB / (r.ms / 1000) : r.files / (r.ms / 1000);

const mib = (bytes: number, digits = 0): string => (bytes / MiB).toFixed(digits);

function report(measurements: Measurement[], rssRows: RssRow[]): string {
  const unit = (m: Measurement) => ` ${m.unit}`;
  const main = table(
    ['measurement', 'Baseplate', 'plain Node stream', 'ratio Baseplate / plain'],
    measurements.map((m) => [
      m.label,
      spread(m.rates.baseplate, 0, unit(m)),
      spread(m.rates.plain, 0, unit(m)),
      spread(ratios(m.rates.baseplate, m.rates.plain), 2),
    ]),
  );
  const floors = table(
    [
      'where the time goes',
      'plain + MD5',
      'bare node:http, no MD5',
      'bare node:http (+ MD5 up)',
      'Baseplate / bare node:http',
    ],
    measurements.map((m) => [
      m.label,
      spread(m.rates.plainMd5, 0, unit(m)),
      spread(m.rates.bareNoMd5, 0, unit(m)),
      spread(m.rates.bare, 0, unit(m)),
      spread(ratios(m.rates.baseplate, m.rates.bare), 2),
    ]),
  );
  const labels = [...new Set(rssRows.map((r) => r.label))];
  const range = (xs: number[], digits = 0) =>
    `${mib(Math.min(...xs), digits)}–${mib(Math.max(...xs), digits)}`;
  const rss = table(
    [
      'platform process RSS (MiB)',
      'before',
      'peak, 20 ms samples',
      'peak, VmHWM',
      'growth (median, min–max)',
    ],
    labels.map((label) => {
      const runs = rssRows.filter((r) => r.label === label).map((r) => r.rss);
      const kernel = runs.flatMap((r) => (r.kernel === undefined ? [] : [r.kernel]));
      const growth = runs.map((r) => Math.max(r.sampled, r.kernel ?? 0) - r.before);
      return [
        `${label} (${runs.length} runs)`,
        range(runs.map((r) => r.before)),
        range(runs.map((r) => r.sampled)),
        kernel.length ? range(kernel) : 'n/a',
        `+${mib(median(growth), 1)} (${range(growth, 1)})`,
      ];
    }),
  );
  return [main, floors, rssRows.length ? rss : ''].join('\n\n');
}

// --- fixture files --------------------------------------------------------------------------

async function randomFile(path: string, bytes: number): Promise<void> {
  const file = await open(path, 'wx');
  try {
    for (let left = bytes; left > 0; left -= MiB)
      await file.write(randomBytes(Math.min(MiB, left)));
  } finally {
    await file.close();
  }
}

// --- main -----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-storage-'));
  const storageDir = join(dir, 'storage');
  const src = join(dir, 'src');
  const plain = join(dir, 'plain');
  const bareDir = join(dir, 'bare');
  await Promise.all([
    mkdir(storageDir),
    mkdir(join(src, 'small'), { recursive: true }),
    mkdir(plain),
    mkdir(bareDir),
  ]);
  if ((await stat(storageDir)).dev !== (await stat(plain)).dev) {
    throw new Error('STORAGE_DIR and the baseline are on different devices');
  }
  const platform = await startBenchPlatform({
    STORAGE_DRIVER: 'fs',
    STORAGE_DIR: storageDir,
    STORAGE_MAX_UPLOAD_BYTES: String((Math.max(largeMb, hugeMb, WARM_MB) + 1) * MiB),
  }).catch(async (e: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw e;
  });
  let bare: BareServer | undefined;
  let ref: string | undefined;
  const measurements: Measurement[] = [];
  const rssRows: RssRow[] = [];
  try {
    bare = await startBareServer(bareDir);
    const bareUrl = (name: string) => `${bare!.url}/${name}`;
    const project = await createBenchProject(platform);
    ref = project.ref;
    const keys = (
      await json(`${platform.controlUrl}/v1/projects/${ref}/api-keys`, 'GET', {
        token: project.token,
      })
    ).body as unknown as Array<{ name: string; api_key: string }>;
    const service = keys.find((k) => k.name === 'service_role')!.api_key;
    const auth = { apikey: service, authorization: `Bearer ${service}` };
    const base = `${platform.dataUrl}/projects/${ref}/storage/v1`;
    const bucket = await json(`${base}/bucket`, 'POST', {
      headers: auth,
      body: { id: BUCKET, public: false },
    });
    if (bucket.status !== 200) throw new Error(`bucket: ${JSON.stringify(bucket.body)}`);
    const objectUrl = (name: string) => `${base}/object/${BUCKET}/${name}`;
    const uploadHeaders = { ...auth, 'content-type': 'application/octet-stream' };
    const removeObjects = async (names: string[]) => {
      for (let i = 0; i < names.length; i += 1000) {
        const res = await json(`${base}/object/${BUCKET}`, 'DELETE', {
          headers: auth,
          body: { prefixes: names.slice(i, i + 1000) },
        });
        if (res.status !== 200) throw new Error(`delete: ${JSON.stringify(res.body)}`);
      }
    };

    /**
     * One run of a measurement: every variant once, in an order rotated by the run so no
     * variant always goes first (or right after a write). Baseplate's RSS is sampled if `rss`.
     */
    const measure = async (
      m: Measurement,
      run: number,
      jobs: Partial<Record<Variant, ClientJob>>,
      rss?: string,
    ) => {
      const variants = Object.keys(jobs) as Variant[];
      const shift = (run - 1) % variants.length;
      for (const v of [...variants.slice(shift), ...variants.slice(0, shift)]) {
        let result: ClientResult;
        if (v === 'baseplate' && rss) {
          const measured = await withRss(() => runClient(jobs[v]!));
          rssRows.push({ label: rss, rss: measured.rss });
          result = measured.value;
        } else {
          result = await runClient(jobs[v]!);
        }
        (m.rates[v] ??= []).push(rate(m.unit, result));
      }
    };

    // Warm-up (not measured): JIT, the project pool, the bucket directory.
    const warm = join(src, 'warm.bin');
    await randomFile(warm, WARM_MB * MiB);
    for (let i = 0; i < 3; i++) {
      const job = { count: 1, concurrency: 1, size: WARM_MB * MiB };
      const url = objectUrl(`warm-${i}.bin`);
      await runClient({ ...job, mode: 'http-upload', url, src: warm, headers: uploadHeaders });
      await runClient({ ...job, mode: 'http-download', url, headers: auth });
      await runClient({
        ...job,
        mode: 'http-upload',
        url: bareUrl('warm'),
        src: warm,
        headers: {},
      });
    }

    // One file of `mb` MiB, streamed up and down.
    const large = async (mb: number) => {
      if (mb <= 0) return;
      const file = join(src, `file-${mb}.bin`);
      await randomFile(file, mb * MiB);
      const up: Measurement = { label: `upload ${mb} MiB file`, unit: 'MiB/s', rates: {} };
      const down: Measurement = { label: `download ${mb} MiB file`, unit: 'MiB/s', rates: {} };
      const one = { count: 1, concurrency: 1, size: mb * MiB };
      for (let run = 1; run <= repeat; run++) {
        const name = `file-${mb}-${run}.bin`;
        const copy = join(plain, name);
        const copyMd5 = join(plain, `md5-${name}`);
        await measure(
          up,
          run,
          {
            baseplate: {
              ...one,
              mode: 'http-upload',
              url: objectUrl(name),
              src: file,
              headers: uploadHeaders,
            },
            plain: { ...one, mode: 'fs-copy', src: file, dst: copy },
            plainMd5: { ...one, mode: 'fs-copy', src: file, dst: copyMd5, md5: true },
            bareNoMd5: {
              ...one,
              mode: 'http-upload',
              url: `${bareUrl(`raw-${name}`)}?md5=0`,
              src: file,
              headers: {},
            },
            bare: { ...one, mode: 'http-upload', url: bareUrl(name), src: file, headers: {} },
          },
          `upload ${mb} MiB`,
        );
        await measure(
          down,
          run,
          {
            baseplate: { ...one, mode: 'http-download', url: objectUrl(name), headers: auth },
            plain: { ...one, mode: 'fs-read', src: copy },
            bare: { ...one, mode: 'http-download', url: bareUrl(name), headers: {} },
          },
          `download ${mb} MiB`,
        );
        if (run === 1) {
          await runClient({
            ...one,
            mode: 'http-download',
            url: objectUrl(name),
            headers: auth,
            verify: file,
          });
        }
        // Dropped before the next run: their dirty pages need not be written back mid-measurement.
        await removeObjects([name]);
        await Promise.all(
          [copy, copyMd5, join(bareDir, name), join(bareDir, `raw-${name}`)].map((f) => rm(f)),
        );
      }
      measurements.push(up, down);
    };
    await large(largeMb);
    await large(hugeMb);

    if (smallCount > 0) {
      const size = smallKb * 1024;
      for (let i = 0; i < smallCount; i++) await randomFile(join(src, 'small', `${i}.bin`), size);
      const srcFiles = join(src, 'small', '{i}.bin');
      const many = { count: smallCount, concurrency, size };
      const label = `${smallCount} × ${smallKb} KiB files`;
      const up: Measurement = { label: `upload ${label}`, unit: 'files/s', rates: {} };
      const down: Measurement = { label: `download ${label}`, unit: 'files/s', rates: {} };
      for (let run = 1; run <= repeat; run++) {
        const prefix = `small-${run}`;
        const urls = objectUrl(`${prefix}/{i}.bin`);
        const copies = join(plain, prefix);
        const copiesMd5 = join(plain, `md5-${prefix}`);
        await Promise.all([mkdir(copies), mkdir(copiesMd5)]);
        await measure(up, run, {
          baseplate: {
            ...many,
            mode: 'http-upload',
            url: urls,
            src: srcFiles,
            headers: uploadHeaders,
          },
          plain: { ...many, mode: 'fs-copy', src: srcFiles, dst: join(copies, '{i}.bin') },
          plainMd5: {
            ...many,
            mode: 'fs-copy',
            src: srcFiles,
            dst: join(copiesMd5, '{i}.bin'),
            md5: true,
          },
          bareNoMd5: {
            ...many,
            mode: 'http-upload',
            url: `${bareUrl(`raw-${prefix}-{i}`)}?md5=0`,
            src: srcFiles,
            headers: {},
          },
          bare: {
            ...many,
            mode: 'http-upload',
            url: bareUrl(`${prefix}-{i}`),
            src: srcFiles,
            headers: {},
          },
        });
        await measure(down, run, {
          baseplate: { ...many, mode: 'http-download', url: urls, headers: auth },
          plain: { ...many, mode: 'fs-read', src: join(copies, '{i}.bin') },
          bare: { ...many, mode: 'http-download', url: bareUrl(`${prefix}-{i}`), headers: {} },
        });
        if (run === 1) {
          await runClient({
            ...many,
            mode: 'http-download',
            url: urls,
            headers: auth,
            verify: srcFiles,
          });
        }
        await removeObjects(Array.from({ length: smallCount }, (_, i) => `${prefix}/${i}.bin`));
        await Promise.all([copies, copiesMd5].map((d) => rm(d, { recursive: true })));
      }
      measurements.push(up, down);
    }

    console.log(report(measurements, rssRows));
    console.log(
      `\nbench/storage: ${repeat} runs each, median (min–max); large files one stream, small files ` +
        `${concurrency} at once; client and baselines in a child process; fs driver, baselines ` +
        `and bare server under ${dir} (one device); downloads verified by SHA-256 once; ` +
        `Node ${process.version}, ${cpus().length} cores`,
    );
  } finally {
    await bare?.close();
    await platform.close(ref ? [ref] : []);
    await rm(dir, { recursive: true, force: true });
  }
}

runBench(main);
