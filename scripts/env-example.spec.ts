import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderEnvExample } from '@baseplate/config';

describe('.env.example', () => {
  it('matches the config schema (regenerate: npm run env:example)', () => {
    const committed = readFileSync(join(__dirname, '..', '.env.example'), 'utf8');
    expect(committed).toBe(renderEnvExample());
  });
});
