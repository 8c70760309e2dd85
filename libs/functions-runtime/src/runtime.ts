/**
 * The contract between the platform and a function runtime driver (`process` or `docker`).
 * A deployed function version is identified by `FunctionRef`; its code is plain CommonJS that
 * esbuild produced at deploy (`module.exports = handler`, `exports.default` or
 * `exports.handler`). The driver owns processes or containers and their limits.
 */
export interface FunctionRef {
  /** Project ref (20 lowercase letters and digits). */
  ref: string;
  /** Function slug (`^[a-z0-9][a-z0-9_-]{0,62}$`). */
  slug: string;
  /** Deployed version (1, 2, ...): a new version replaces the old one's workers. */
  version: number;
}

export interface FunctionLimits {
  /** Wall-clock limit of one invocation; past it the worker is killed (and replaced). */
  timeoutMs: number;
  /** Memory of one worker (heap and off-heap). */
  memoryMb: number;
  /** Largest payload and result, as JSON bytes. */
  maxPayloadBytes: number;
  /** Invocations of one function in flight at once; more are refused (429). */
  maxConcurrency: number;
}

export interface DeployInput extends FunctionRef {
  /** Compiled CommonJS source. */
  code: string;
  limits: FunctionLimits;
}

export interface LogLine {
  level: 'log' | 'info' | 'warn' | 'error' | 'debug';
  /** The console arguments, formatted as `util.format` would (truncated when long). */
  message: string;
  /** Milliseconds since the invocation started. */
  at: number;
}

export type InvokeOutcome =
  | { status: 'ok'; value: unknown; durationMs: number; logs: LogLine[] }
  /** The handler threw or rejected: `message` is the error's message (shown to the caller). */
  | { status: 'error'; message: string; durationMs: number; logs: LogLine[] }
  /** The wall-clock limit passed; the worker was killed. */
  | { status: 'timeout'; durationMs: number; logs: LogLine[] }
  /** The worker died (memory limit, process.exit, crash) during the call. */
  | { status: 'crashed'; message: string; durationMs: number; logs: LogLine[] }
  /** The result could not be sent back (over maxPayloadBytes, or not JSON-serialisable). */
  | { status: 'bad_result'; message: string; durationMs: number; logs: LogLine[] }
  /** maxConcurrency invocations were already running. */
  | { status: 'busy'; durationMs: number; logs: LogLine[] };

/** Why code could not be loaded: a syntax error, a throw at load, or no handler exported. */
export class FunctionLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FunctionLoadError';
  }
}

export interface RuntimeStats {
  /** Workers (processes or containers) alive, per `ref/slug@version`. */
  workers: Record<string, number>;
  invocations: number;
}

export interface FunctionRuntime {
  /**
   * Makes a version invocable: loads the code into a fresh worker and waits until the handler
   * is found, or throws FunctionLoadError (the earlier version, if any, keeps serving).
   * Deploying the version that is already loaded is a no-op.
   */
  deploy(input: DeployInput): Promise<void>;
  /**
   * Calls the handler of a deployed version with the payload (already parsed JSON). Drivers
   * never throw for the handler's failures: they answer an InvokeOutcome. Throws only if the
   * version was never deployed here (the caller deploys first).
   */
  invoke(fn: FunctionRef, payload: unknown): Promise<InvokeOutcome>;
  /** Whether this exact version is deployed (loaded) in this runtime. */
  has(fn: FunctionRef): boolean;
  /** Stops the workers of a function (every version), or of every function of a project. */
  remove(ref: string, slug?: string): Promise<void>;
  stats(): RuntimeStats;
  /** Stops everything (shutdown). */
  close(): Promise<void>;
}
