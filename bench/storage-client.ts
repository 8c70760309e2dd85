/**
 * The client half of bench/storage, run as a child process so the benchmark process's RSS is
 * the platform's alone and the two do not share an event loop. One job per run; prints one
 * JSON line `{ ms, files, bytes }`. Files are named by a template whose `{i}` runs 0..count-1,
 * all of one size; `concurrency` of them are in flight at a time.
 *   http-upload:   POST each file to the data plane, streamed from disk (raw body)
 *   http-download: GET each object and discard it (or hash it against its source: `verify`)
 *   fs-copy:       the baseline of an upload: pipeline(createReadStream, createWriteStream),
 *                  with `md5` an MD5 Transform between them (what the fs driver adds)
 *   fs-read:       the baseline of a download: createReadStream, discarded
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

interface Files {
  count: number;
  concurrency: number;
  /** Bytes of each file. */
  size: number;
}

export interface HttpUploadJob extends Files {
  mode: 'http-upload';
  /** Object URL template (`{i}`). */
  url: string;
  /** Source file template (`{i}`). */
  src: string;
  headers: Record<string, string>;
}

export interface HttpDownloadJob extends Files {
  mode: 'http-download';
  url: string;
  headers: Record<string, string>;
  /** Source file template: hash every download against it (a correctness pass, not timed). */
  verify?: string;
}

export interface FsCopyJob extends Files {
  mode: 'fs-copy';
  src: string;
  dst: string;
  md5?: boolean;
}

export interface FsReadJob extends Files {
  mode: 'fs-read';
  src: string;
}

export type ClientJob = HttpUploadJob | HttpDownloadJob | FsCopyJob | FsReadJob;

export interface ClientResult {
  ms: number;
  files: number;
  bytes: number;
}

const nth = (template: string, i: number): string => template.replace('{i}', String(i));

/** `concurrency` loops taking the next index until `count` are done. */
async function each(
  count: number,
  concurrency: number,
  fn: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, loop));
}

function failed(res: IncomingMessage, what: string): Promise<never> {
  return new Promise((_resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () =>
      reject(new Error(`${what}: ${res.statusCode} ${Buffer.concat(chunks).toString()}`)),
    );
    res.on('error', reject);
  });
}

function upload(agent: Agent, job: HttpUploadJob, i: number): Promise<void> {
  const url = nth(job.url, i);
  return new Promise<void>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...job.headers, 'content-length': String(job.size) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          failed(res, `POST ${url}`).catch(reject);
          return;
        }
        res.resume();
        res.on('end', resolve);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    pipeline(createReadStream(nth(job.src, i)), req).catch(reject);
  });
}

function download(agent: Agent, job: HttpDownloadJob, i: number): Promise<void> {
  const url = nth(job.url, i);
  return new Promise<void>((resolve, reject) => {
    const req = request(url, { method: 'GET', agent, headers: job.headers }, (res) => {
      if (res.statusCode !== 200) {
        failed(res, `GET ${url}`).catch(reject);
        return;
      }
      let bytes = 0;
      const hash = job.verify ? createHash('sha256') : undefined;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash?.update(chunk);
      });
      res.on('error', reject);
      res.on('end', () => {
        if (bytes !== job.size) {
          reject(new Error(`GET ${url}: ${bytes} bytes, expected ${job.size}`));
        } else if (hash) {
          void sha256File(nth(job.verify!, i)).then((expected) => {
            const got = hash.digest('hex');
            if (got === expected) resolve();
            else reject(new Error(`GET ${url}: sha256 ${got}, source ${expected}`));
          }, reject);
        } else {
          resolve();
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

async function copy(src: string, dst: string, md5: boolean): Promise<void> {
  if (!md5) {
    await pipeline(createReadStream(src), createWriteStream(dst));
    return;
  }
  const hash = createHash('md5');
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(src), meter, createWriteStream(dst));
  hash.digest('hex');
}

async function readAndDiscard(path: string, size: number): Promise<void> {
  let bytes = 0;
  const stream = createReadStream(path);
  stream.on('data', (chunk) => {
    bytes += chunk.length;
  });
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  if (bytes !== size) throw new Error(`${path}: ${bytes} bytes, expected ${size}`);
}

export async function runJob(job: ClientJob): Promise<ClientResult> {
  // As many kept-alive sockets as loops: each loop reuses its connection, as a client would.
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  let once: (i: number) => Promise<void>;
  switch (job.mode) {
    case 'http-upload':
      once = (i) => upload(agent, job, i);
      break;
    case 'http-download':
      once = (i) => download(agent, job, i);
      break;
    case 'fs-copy':
      once = (i) => copy(nth(job.src, i), nth(job.dst, i), job.md5 === true);
      break;
    case 'fs-read':
      once = (i) => readAndDiscard(nth(job.src, i), job.size);
      break;
  }
  const started = process.hrtime.bigint();
  try {
    await each(job.count, job.concurrency, once);
  } finally {
    agent.destroy();
  }
  return {
    ms: Number(process.hrtime.bigint() - started) / 1e6,
    files: job.count,
    bytes: job.count * job.size,
  };
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '{}') as ClientJob;
  process.stdout.write(`${JSON.stringify(await runJob(job))}\n`);
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
