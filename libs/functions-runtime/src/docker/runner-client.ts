import { Agent, request } from 'node:http';
import { MAX_LOG_LINES, parseLogLine, parseResult, type RunnerResult } from '../protocol';
import { FunctionLoadError, type FunctionLimits, type LogLine } from '../runtime';

/** Whatever a call over HTTP came to; `failed` means the runner could not be reached. */
export type RunnerReply =
  { kind: 'result'; result: RunnerResult; logs: LogLine[] } | { kind: 'failed'; message: string };

class NoAnswer extends Error {}

/** Extra room for JSON escaping of the result and for the logs of a reply. */
const REPLY_OVERHEAD_BYTES = 1024 * 1024;

/**
 * The docker driver's side of runner.js in HTTP mode, over the unix socket the container
 * listens on in its mounted directory. Replies are as untrusted as IPC messages: size-capped
 * while read, then checked field by field.
 */
export class RunnerClient {
  private readonly agent: Agent;
  private readonly maxReplyBytes: number;

  constructor(
    private readonly socketPath: string,
    private readonly limits: FunctionLimits,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: Math.max(1, limits.maxConcurrency) });
    this.maxReplyBytes = limits.maxPayloadBytes * 6 + REPLY_OVERHEAD_BYTES;
  }

  async health(): Promise<boolean> {
    try {
      const r = await this.call('GET', '/health', '', 1_000);
      return r.status === 200;
    } catch {
      return false;
    }
  }

  /**
   * Loads the code; FunctionLoadError with the runner's message when it does not load, or when
   * its top level runs past `timeoutMs`.
   */
  async load(code: string, timeoutMs: number): Promise<void> {
    const body = JSON.stringify({ code, limits: this.limits });
    const r = await this.call('POST', '/load', body, timeoutMs).catch((e: Error) => {
      throw e instanceof NoAnswer
        ? new FunctionLoadError(`Loading took longer than ${timeoutMs} ms`)
        : e;
    });
    if (r.status === 200) return;
    const message = r.status === 422 ? loadErrorOf(r.body) : undefined;
    throw message ? new FunctionLoadError(message) : new Error(`runner answered ${r.status}`);
  }

  /** One call; the caller owns the wall clock and destroys the container past it. */
  async invoke(payloadJson: string): Promise<RunnerReply> {
    let r: { status: number; body: string };
    try {
      r = await this.call('POST', '/invoke', payloadJson, 0);
    } catch (e) {
      return { kind: 'failed', message: (e as Error).message };
    }
    const parsed = r.status === 200 ? parseReply(r.body, this.limits.maxPayloadBytes) : undefined;
    return parsed ?? { kind: 'failed', message: `The runner answered badly (${r.status})` };
  }

  close(): void {
    this.agent.destroy();
  }

  private call(
    method: string,
    path: string,
    body: string,
    timeoutMs: number,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          socketPath: this.socketPath,
          path,
          method,
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
          ...(timeoutMs > 0 ? { timeout: timeoutMs } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > this.maxReplyBytes) {
              res.destroy(new Error(`The reply is larger than ${this.maxReplyBytes} bytes`));
            } else chunks.push(c);
          });
          res.on('error', reject);
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
        },
      );
      req.on('timeout', () => req.destroy(new NoAnswer(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}

function loadErrorOf(body: string): string | undefined {
  try {
    const v = JSON.parse(body) as { t?: unknown; message?: unknown };
    return v.t === 'loadErr' && typeof v.message === 'string'
      ? v.message.slice(0, 2_020)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The runner's invoke reply: the result fields plus its logs. */
export function parseReply(body: string, maxJsonBytes: number): RunnerReply | undefined {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const obj = v as Record<string, unknown>;
  const result = parseResult(obj, maxJsonBytes);
  if (!result || !Array.isArray(obj.logs) || obj.logs.length > MAX_LOG_LINES) return undefined;
  const logs: LogLine[] = [];
  for (const l of obj.logs) {
    const line = parseLogLine(l);
    if (!line) return undefined;
    logs.push(line);
  }
  return { kind: 'result', result, logs };
}
