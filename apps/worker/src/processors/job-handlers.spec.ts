import { Job } from 'bullmq';
import { JOB_NAMES, QUEUES } from '@baseplate/jobs';
import { HandlerRegistryError, jobDecorator, resolveHandlers } from './job-handlers';
import { ProvisioningProcessor } from './provisioning.processor';

interface Payloads {
  alpha: { a: number };
  beta: { b: string };
  gamma: Record<string, never>;
}
const OnJob = jobDecorator<Payloads>();
const EXPECTED = ['alpha', 'beta'];

class Complete {
  @OnJob('alpha')
  async alpha(job: Job<Payloads['alpha']>) {
    return `alpha ${job.data.a}`;
  }

  @OnJob('beta')
  async beta(job: Job<Payloads['beta']>) {
    return `beta ${job.data.b} from ${this.constructor.name}`;
  }
}

class MissingBeta {
  @OnJob('alpha')
  async alpha() {
    return 'alpha';
  }
}

class DoubleAlpha {
  @OnJob('alpha')
  async first() {}

  @OnJob('alpha')
  async second() {}

  @OnJob('beta')
  async beta() {}
}

class ExtraGamma {
  @OnJob('alpha')
  async alpha() {}

  @OnJob('beta')
  async beta() {}

  @OnJob('gamma')
  async gamma() {}
}

const fakeJob = <T>(name: string, data: T) => ({ name, data }) as unknown as Job<T>;

const registryError = (target: object): string => {
  try {
    resolveHandlers('test', target, EXPECTED);
  } catch (e) {
    expect(e).toBeInstanceOf(HandlerRegistryError);
    return (e as Error).message;
  }
  throw new Error('expected resolveHandlers to throw');
};

describe('resolveHandlers', () => {
  it('maps every expected job to its method, bound to the instance', async () => {
    const handlers = resolveHandlers('test', new Complete(), EXPECTED);
    expect([...handlers.keys()].sort()).toEqual(EXPECTED);
    await expect(handlers.get('alpha')!(fakeJob('alpha', { a: 1 }))).resolves.toBe('alpha 1');
    await expect(handlers.get('beta')!(fakeJob('beta', { b: 'x' }))).resolves.toBe(
      'beta x from Complete',
    );
  });

  it('refuses a job name without a handler, naming the queue and the job', () => {
    expect(registryError(new MissingBeta())).toBe(
      'Worker cannot start: queue "test": job "beta" has no handler. Every job name in JOB_NAMES needs exactly one handler.',
    );
  });

  it('refuses a job name with two handlers, naming both', () => {
    expect(registryError(new DoubleAlpha())).toMatch(
      /job "alpha" has 2 handlers \(DoubleAlpha\.first, DoubleAlpha\.second\)/,
    );
  });

  it('refuses a handler for a job the queue does not have', () => {
    expect(registryError(new ExtraGamma())).toMatch(
      /ExtraGamma\.gamma handles unknown job "gamma"/,
    );
  });

  it('reports every problem at once', () => {
    const message = registryError(new (class Empty {})());
    expect(message).toMatch(/job "alpha" has no handler; job "beta" has no handler/);
  });

  it('accepts the real provisioning processor: one handler per provisioning job', () => {
    const processor = Object.create(ProvisioningProcessor.prototype) as object;
    const handlers = resolveHandlers(QUEUES.provisioning, processor, JOB_NAMES.provisioning);
    expect([...handlers.keys()].sort()).toEqual([...JOB_NAMES.provisioning].sort());
  });
});
