// Lint runs in `npm test`. Workflow code (libs/engine) is replayed by Temporal, so it may import nothing
// that does I/O or reads the clock outside the workflow sandbox; floating promises are errors everywhere.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'bench/results/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { disallowTypeAnnotations: false, fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['libs/engine/src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['node:*', 'fs', 'http', 'https', 'crypto', 'path', 'os', 'child_process', 'net'], message: 'Workflow code must stay deterministic: no Node built-ins.' },
          { group: ['openai', 'typeorm', 'mysql2', '@nestjs/*', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@app/persistence', '@app/providers', '@app/config'], message: 'Workflow code must not do I/O: call an activity.' },
        ],
      }],
    },
  },
  {
    files: ['libs/domain/src/**/*.ts', 'libs/contracts/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['@nestjs/*', 'typeorm', 'mysql2', 'openai', '@temporalio/*', '@app/persistence', '@app/providers', '@app/engine', '@app/runs', '@app/definitions', '@app/config'], message: 'contracts and domain are pure: no framework, database or provider.' }],
      }],
    },
  },
  {
    // A run's life: plain classes over persistence's repositories and the RunLauncher port, for both apps.
    files: ['libs/runs/src/**/*.ts'],
    ignores: ['libs/runs/src/run-life.module.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['@nestjs/*', 'typeorm', 'mysql2', '@temporalio/*', '@app/config', '@app/definitions', '@app/engine', '**/apps/**'], message: 'libs/runs is framework-free: persistence, domain, contracts, providers and observability only; run-life.module.ts wires it.' }],
      }],
    },
  },
  {
    // Its Nest wiring, the one file that knows Nest and the settings; never Temporal (the API's RunLauncher is).
    files: ['libs/runs/src/run-life.module.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['@nestjs/core', 'typeorm', 'mysql2', '@temporalio/*', '@app/definitions', '@app/engine', '**/apps/**'], message: 'run-life.module.ts wires libs/runs with @nestjs/common and the settings, nothing else.' }],
      }],
    },
  },
  {
    files: ['libs/persistence/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['@app/runs', '@app/definitions', '@app/engine', '**/apps/**'], message: 'persistence holds tables, repositories, mappers and migrations: the rules of a run live in libs/runs.' }],
      }],
    },
  },
  {
    // The definitions' services, for both apps: Nest injectables over persistence, config and the run
    // life (libs/runs); where they need an app (a Temporal client) they name a port the app implements.
    files: ['libs/definitions/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['@app/engine', '**/apps/**'], message: 'libs/definitions never imports an app or workflow code: name a port (an abstract class) the apps implement.' }],
      }],
    },
  },
  {
    // The apps import libraries only: what both need (a run's life, the definitions) lives in libs.
    files: ['apps/worker/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/apps/api/**', '**/api/src/**'], message: 'The worker never imports the API: move what both need into a library.' }] }],
    },
  },
  {
    files: ['apps/api/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/apps/worker/**', '**/worker/src/**'], message: 'The API never imports the worker: move what both need into a library.' }] }],
    },
  },
);
