// One jest run, four projects: pure unit specs next to the code; medium specs (services and repositories
// against the real MySQL, no Temporal: test/medium/global-setup.ts); the engine's workflow specs (the run
// workflow on the real Temporal over fake activities, no MySQL: test/engine/global-setup.ts); and the e2e
// specs in test/ that need the real MySQL and Temporal brought up by scripts/test.sh (see
// test/support/global-setup.ts).
const fs = require('node:fs');
const path = require('node:path');

const swcrc = JSON.parse(fs.readFileSync(path.join(__dirname, '.swcrc'), 'utf8'));
delete swcrc.exclude; // .swcrc skips specs for the build; jest must compile them
delete swcrc.$schema;
swcrc.jsc.baseUrl = __dirname;
// NestJS 12 ships ESM only: plain Node 20.19+ loads it with require(esm), but jest's module runtime
// cannot (before Node 24.9), so jest compiles @nestjs/* to CommonJS as well.
const esmToCjs = { swcrc: false, module: { type: 'commonjs' }, jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } } };
const transform = {
  '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
  '^.+/node_modules/@nestjs/.+\\.js$': ['@swc/jest', esmToCjs],
};
const transformIgnorePatterns = ['/node_modules/(?!@nestjs/)'];

const moduleNameMapper = {
  '^@app/(contracts|domain|persistence|engine|runs|definitions|providers|config|security|observability)$': '<rootDir>/libs/$1/src',
};

module.exports = {
  // e2e runs wait on real Temporal timers (whole seconds); unit specs finish long before this.
  testTimeout: 120000,
  // Spec files run in a worker process that is replaced once it holds more than this after a file: on two
  // cores jest would otherwise run every file in its own process, whose heap then keeps what each e2e stack
  // left (native Temporal runtimes, sockets, bundles) until it died of it past 4 GB, 150 files in.
  workerIdleMemoryLimit: '1536MB',
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: ['<rootDir>/{apps,libs,scripts}/**/*.spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
      setupFiles: ['<rootDir>/test/support/fast-check-seed.ts'],
    },
    {
      displayName: 'medium',
      rootDir: __dirname,
      // In test/medium rather than next to the code: they share the model fake and fixtures of test/, which
      // must stay out of apps/ and libs/ (and out of the build).
      testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/medium/global-setup.ts',
    },
    {
      displayName: 'workflow',
      rootDir: __dirname,
      // In test/engine rather than next to the workflow code: their fakes and worker are no part of the build.
      testMatch: ['<rootDir>/test/engine/**/*.workflow-spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/engine/global-setup.ts',
      globalTeardown: '<rootDir>/test/engine/global-teardown.ts',
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
  ],
};
