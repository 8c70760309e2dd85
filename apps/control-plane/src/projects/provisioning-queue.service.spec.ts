import { Job } from 'bullmq';
import { Errors, ErrorCode } from '@baseplate/errors';
import {
  addOrRetry,
  JobProgress,
  JobQueue,
  pollUntilFinished,
  withDeadline,
} from './provisioning-queue.service';

/** A job as addOrRetry sees it: a state, and a retry that may lose a race. */
class FakeJob {
  retried = 0;
  constructor(
    readonly id: string,
    public state: 'failed' | 'completed' | 'active' | 'waiting',
    private readonly retryError?: Error,
  ) {}
  isFailed() {
    return Promise.resolve(this.state === 'failed');
  }
  retry(state: string, opts: { resetAttemptsMade?: boolean }) {
    expect(state).toBe('failed');
    expect(opts.resetAttemptsMade).toBe(true);
    if (this.retryError) return Promise.reject(this.retryError);
    this.retried++;
    this.state = 'waiting';
    return Promise.resolve();
  }
}

/** BullMQ's dedup: an add whose id exists changes nothing. */
class FakeQueue implements JobQueue {
  readonly jobs = new Map<string, FakeJob>();
  adds = 0;
  getJob = (id: string) => Promise.resolve(this.jobs.get(id) as unknown as Job | undefined);
  add = ((_name: string, _data: unknown, opts: { jobId: string }) => {
    this.adds++;
    if (!this.jobs.has(opts.jobId)) this.jobs.set(opts.jobId, new FakeJob(opts.jobId, 'waiting'));
    return Promise.resolve(this.jobs.get(opts.jobId) as unknown as Job);
  }) as JobQueue['add'];
}

describe('addOrRetry', () => {
  const opts = { jobId: 'rotate-keys.abc.2' };
  let queue: FakeQueue;
  beforeEach(() => {
    queue = new FakeQueue();
  });

  it('adds a job whose id is new', async () => {
    const job = await addOrRetry(queue, 'rotate-keys', {}, opts);
    expect(job.id).toBe(opts.jobId);
    expect(queue.adds).toBe(1);
  });

  it('retries a failed job under the id instead of adding a no-op', async () => {
    const failed = new FakeJob(opts.jobId, 'failed');
    queue.jobs.set(opts.jobId, failed);
    const job = await addOrRetry(queue, 'rotate-keys', {}, opts);
    expect(job).toBe(failed);
    expect(failed.retried).toBe(1);
    expect(failed.state).toBe('waiting');
    expect(queue.adds).toBe(0);
  });

  it.each(['completed', 'active', 'waiting'] as const)(
    'leaves a %s job alone (the add is the usual dedup)',
    async (state) => {
      const existing = new FakeJob(opts.jobId, state);
      queue.jobs.set(opts.jobId, existing);
      expect(await addOrRetry(queue, 'rotate-keys', {}, opts)).toBe(existing);
      expect(existing.retried).toBe(0);
      expect(queue.adds).toBe(1);
    },
  );

  it('falls back to the add when a concurrent request retried the job first', async () => {
    queue.jobs.set(opts.jobId, new FakeJob(opts.jobId, 'failed', new Error('not in failed state')));
    const job = await addOrRetry(queue, 'rotate-keys', {}, opts);
    expect(job.id).toBe(opts.jobId);
    expect(queue.adds).toBe(1);
  });
});

describe('withDeadline', () => {
  it('passes a result that arrives in time through', async () => {
    await expect(withDeadline(Promise.resolve(7), 1000, () => new Error('late'))).resolves.toBe(7);
  });

  it('rejects with the expiry error when the work hangs', async () => {
    const hangs = new Promise<never>(() => undefined);
    await expect(withDeadline(hangs, 10, () => Errors.unavailable('gone'))).rejects.toMatchObject({
      status: 503,
      code: ErrorCode.Unavailable,
    });
  });
});

describe('pollUntilFinished', () => {
  const SAFE = 'Key rotation failed; try again';
  const states = (...seq: JobProgress[]) => {
    const reads = [...seq];
    return jest.fn(async () => reads.shift() ?? seq[seq.length - 1]!);
  };

  it('returns once the job completes, reading until then', async () => {
    const read = states({ state: 'waiting' }, { state: 'active' }, { state: 'completed' });
    await expect(pollUntilFinished(read, 1000, SAFE, 1)).resolves.toBeUndefined();
    expect(read).toHaveBeenCalledTimes(3);
  });

  it("maps a failed job to a 500 with the caller's message, never the job's reason", async () => {
    const reason = 'connect to proj_abc as abc_admin timed out: password auth failed';
    const err = await pollUntilFinished(
      states({ state: 'failed', failedReason: reason }),
      1000,
      SAFE,
      1,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 500, code: ErrorCode.Internal, message: SAFE });
    expect((err as Error).cause).toEqual(new Error(reason));
  });

  it('answers 504 when the job is still running at the deadline', async () => {
    const err = await pollUntilFinished(states({ state: 'active' }), 30, SAFE, 5).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ status: 504, code: ErrorCode.Timeout });
  });

  it('passes errors of the read (Redis away: a 503) through', async () => {
    const unavailable = Errors.unavailable('x');
    await expect(pollUntilFinished(() => Promise.reject(unavailable), 1000, SAFE, 1)).rejects.toBe(
      unavailable,
    );
  });
});
