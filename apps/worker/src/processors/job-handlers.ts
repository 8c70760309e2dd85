import 'reflect-metadata';
import { Job } from 'bullmq';

/** A bound job method: receives the BullMQ job, returns the job's result. */
export type JobHandler = (job: Job) => Promise<unknown>;

interface HandlerEntry {
  jobName: string;
  method: string;
}

const JOB_HANDLERS = Symbol('baseplate:job-handlers');

/**
 * Builds the method decorator of one queue, typed by its payload map, so a handler's
 * parameter is the job of exactly the payload its name carries.
 *
 * @example const OnProvisioningJob = jobDecorator<ProvisioningPayloads>();
 */
export function jobDecorator<Payloads>() {
  return <Name extends keyof Payloads & string>(jobName: Name) =>
    <Method extends (job: Job<Payloads[Name]>) => Promise<unknown>>(
      target: object,
      method: string | symbol,
      _descriptor: TypedPropertyDescriptor<Method>,
    ): void => {
      const ctor = target.constructor;
      const own: HandlerEntry[] = Reflect.getOwnMetadata(JOB_HANDLERS, ctor) ?? [];
      Reflect.defineMetadata(JOB_HANDLERS, [...own, { jobName, method: String(method) }], ctor);
    };
}

export class HandlerRegistryError extends Error {
  override name = 'HandlerRegistryError';
}

/**
 * The handlers of one queue, bound to `processor`. Throws (so the worker does not start)
 * unless every expected job name has exactly one handler and no handler names a job
 * the queue does not have: a job nobody handles would sit in Redis forever, and two
 * handlers would make the outcome depend on registration order.
 */
export function resolveHandlers(
  queue: string,
  processor: object,
  expected: readonly string[],
): Map<string, JobHandler> {
  const ctor = processor.constructor;
  const entries: HandlerEntry[] = Reflect.getOwnMetadata(JOB_HANDLERS, ctor) ?? [];
  const problems: string[] = [];
  for (const jobName of expected) {
    const methods = entries.filter((e) => e.jobName === jobName).map((e) => e.method);
    if (methods.length === 0) problems.push(`job "${jobName}" has no handler`);
    if (methods.length > 1) {
      const list = methods.map((m) => `${ctor.name}.${m}`).join(', ');
      problems.push(`job "${jobName}" has ${methods.length} handlers (${list})`);
    }
  }
  for (const entry of entries) {
    if (!expected.includes(entry.jobName)) {
      problems.push(`${ctor.name}.${entry.method} handles unknown job "${entry.jobName}"`);
    }
  }
  if (problems.length > 0) {
    throw new HandlerRegistryError(
      `Worker cannot start: queue "${queue}": ${problems.join('; ')}. Every job name in JOB_NAMES needs exactly one handler.`,
    );
  }
  const bound = processor as Record<string, JobHandler>;
  return new Map(
    entries.map((e) => [e.jobName, (job: Job) => bound[e.method].call(processor, job)]),
  );
}
