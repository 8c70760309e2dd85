/**
 * Writes `.env.example` from the config schema, so the file lists exactly the variables
 * the code reads. scripts/env-example.spec.ts fails when the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderEnvExample } from '@baseplate/config';
import { findRepoRoot } from '@baseplate/dev-services';

const file = join(findRepoRoot(__dirname), '.env.example');
writeFileSync(file, renderEnvExample());
console.log(`Wrote ${file}`);
