import type { InvokeOutcome, LogLine } from './runtime';

/**
 * What a runner may say, checked field by field: a worker runs tenant code, so every message
 * from it is untrusted (a handler can call process.send itself). Anything that does not match
 * is dropped and counted; strings are capped.
 */
export const LOG_LEVELS: readonly LogLine['level'][] = ['log', 'info', 'warn', 'error', 'debug'];
/** Lines kept per invocation: the runner's 100 plus its "dropped" notice. */
export const MAX_LOG_LINES = 101;
export const MAX_LOG_CHARS = 2_000;
export const MAX_MESSAGE_CHARS = 2_000;

export type RunnerMessage =
  | { t: 'ready' }
  | { t: 'loaded' }
  | { t: 'loadErr'; message: string }
  | { t: 'log'; id: number; line: LogLine }
  | { t: 'res'; id: number; result: RunnerResult }
  | { t: 'uncaught'; message: string };

/** A handler's settled call as the runner reports it (`json` is the serialised value). */
export type RunnerResult =
  | { ok: true; json: string | undefined }
  | { ok: false; kind: 'error' | 'bad_result'; message: string };

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown, max: number): string | undefined {
  if (typeof v !== 'string') return undefined;
  return v.length > max ? `${v.slice(0, max)} [truncated]` : v;
}

export function parseLogLine(v: unknown): LogLine | undefined {
  if (!isObj(v)) return undefined;
  const level = LOG_LEVELS.find((l) => l === v.level);
  const message = text(v.message, MAX_LOG_CHARS + 20);
  const at = v.at;
  if (!level || message === undefined || typeof at !== 'number' || !Number.isFinite(at)) {
    return undefined;
  }
  return { level, message, at: Math.max(0, Math.round(at)) };
}

/** The ok/json or ok/kind/message part of a reply; json over `maxJsonBytes` is refused. */
export function parseResult(v: Obj, maxJsonBytes: number): RunnerResult | undefined {
  if (v.ok === true) {
    if (v.json === undefined) return { ok: true, json: undefined };
    if (typeof v.json !== 'string') return undefined;
    if (Buffer.byteLength(v.json) > maxJsonBytes) {
      return {
        ok: false,
        kind: 'bad_result',
        message: `The result is larger than ${maxJsonBytes} bytes`,
      };
    }
    return { ok: true, json: v.json };
  }
  if (v.ok !== false || (v.kind !== 'error' && v.kind !== 'bad_result')) return undefined;
  const message = text(v.message, MAX_MESSAGE_CHARS + 20);
  return message === undefined ? undefined : { ok: false, kind: v.kind, message };
}

function isId(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

export function parseRunnerMessage(raw: unknown, maxJsonBytes: number): RunnerMessage | undefined {
  if (!isObj(raw)) return undefined;
  switch (raw.t) {
    case 'ready':
    case 'loaded':
      return { t: raw.t };
    case 'loadErr':
    case 'uncaught': {
      const message = text(raw.message, MAX_MESSAGE_CHARS + 20);
      return message === undefined ? undefined : { t: raw.t, message };
    }
    case 'log': {
      const line = parseLogLine(raw);
      return line && isId(raw.id) ? { t: 'log', id: raw.id, line } : undefined;
    }
    case 'res': {
      const result = parseResult(raw, maxJsonBytes);
      return result && isId(raw.id) ? { t: 'res', id: raw.id, result } : undefined;
    }
    default:
      return undefined;
  }
}

/** A runner result as the outcome the platform sees; a value that is not JSON is bad_result. */
export function outcomeOf(
  result: RunnerResult,
  durationMs: number,
  logs: LogLine[],
): InvokeOutcome {
  if (!result.ok) return { status: result.kind, message: result.message, durationMs, logs };
  if (result.json === undefined) return { status: 'ok', value: undefined, durationMs, logs };
  try {
    return { status: 'ok', value: JSON.parse(result.json) as unknown, durationMs, logs };
  } catch {
    return { status: 'bad_result', message: 'The result is not JSON', durationMs, logs };
  }
}

/**
 * The payload as the JSON text sent to a runner, or why it cannot be sent. Payloads arrive
 * parsed, so only their size (and odd values such as BigInt) can be wrong.
 */
export function encodePayload(
  payload: unknown,
  maxBytes: number,
): { json: string } | { error: string } {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload === undefined ? null : payload);
  } catch (e) {
    return { error: `The payload is not JSON: ${(e as Error).message}` };
  }
  json ??= 'null';
  if (Buffer.byteLength(json) > maxBytes) {
    return { error: `The payload is larger than ${maxBytes} bytes` };
  }
  return { json };
}
