// Three projects: unit (pure, no services), integration (real PostgreSQL + Redis),
// e2e (all three apps booted, real HTTP). `npm test` runs all of them.
const fs = require('node:fs');
const swc = JSON.parse(fs.readFileSync(`${__dirname}/.swcrc`, 'utf8'));
// swc rewrites the @baseplate/* aliases at transform time, which also covers globalSetup
// (where jest's moduleNameMapper does not apply).
const jsc = { ...swc.jsc, baseUrl: __dirname, paths: { '@baseplate/*': ['libs/*/src'] } };
const transform = {
  '^.+\\.ts$': ['@swc/jest', { ...swc, jsc, sourceMaps: 'inline', swcrc: false }],
};
const moduleNameMapper = { '^@baseplate/([a-z-]+)$': '<rootDir>/libs/$1/src' };
const common = { rootDir: __dirname, testEnvironment: 'node', transform, moduleNameMapper };

module.exports = {
  // Integration and e2e hooks boot apps and provision projects; jest only reads this globally.
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,scripts}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
};
