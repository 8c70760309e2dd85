import type { PinoLogger } from 'nestjs-pino';
import type { Pool } from 'pg';
import { INVOCATIONS_KEPT, InvocationRecorder, newestPerFunction } from './invocation-recorder';

const rec = (functionId: string, n: number) => ({
  functionId,
  version: 1,
  status: 'ok',
  httpStatus: 200,
  durationMs: n,
  logs: [],
});

describe('newestPerFunction', () => {
  it('keeps the newest INVOCATIONS_KEPT of each function, in call order', () => {
    const records = [
      ...Array.from({ length: INVOCATIONS_KEPT + 5 }, (_, i) => rec('a', i)),
      rec('b', 0),
    ];
    const kept = newestPerFunction(records);
    expect(kept.filter((r) => r.functionId === 'a').map((r) => r.durationMs)).toEqual(
      Array.from({ length: INVOCATIONS_KEPT }, (_, i) => i + 5),
    );
    expect(kept.at(-1)).toEqual(rec('b', 0));
  });
});

describe('InvocationRecorder', () => {
  it('runs one write at a time, whatever the number of flush calls', async () => {
    let running = 0;
    let most = 0;
    const batches: number[] = [];
    const pool = {
      query: async (_sql: string, params: unknown[][]) => {
        running++;
        most = Math.max(most, running);
        batches.push(params[0]!.length);
        await new Promise((r) => setTimeout(r, 20));
        running--;
        return { rows: [] };
      },
    } as unknown as Pool;
    const logger = { warn: () => undefined } as unknown as PinoLogger;
    const recorder = new InvocationRecorder(pool, logger);
    recorder.record(rec('a', 1));
    const first = recorder.flush();
    recorder.record(rec('a', 2));
    recorder.record(rec('b', 3));
    await Promise.all([recorder.flush(), recorder.flush(), first]);
    expect(most).toBe(1);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(3);
  });
});
