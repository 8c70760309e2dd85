import { Script } from 'node:vm';
import { RUNNER_SOURCE } from './runner-source';

describe('RUNNER_SOURCE', () => {
  it('is valid JavaScript', () => {
    expect(() => new Script(RUNNER_SOURCE, { filename: 'runner.js' })).not.toThrow();
  });

  it('kept its escapes (String.raw) and allows exactly the documented built-ins', () => {
    expect(RUNNER_SOURCE).toContain(String.raw`'\n'`);
    expect(RUNNER_SOURCE).toContain(
      "['assert', 'buffer', 'crypto', 'events', 'path', 'querystring', 'stream',\n  'string_decoder', 'timers', 'url', 'util', 'zlib']",
    );
    expect(RUNNER_SOURCE).not.toMatch(/'(fs|child_process|net|worker_threads|vm|v8|os)'/);
  });
});
