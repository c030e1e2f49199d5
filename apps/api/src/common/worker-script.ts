// Where a worker thread's code is: the built .js next to the caller, or, when the API runs from its
// TypeScript sources (jest), the .ts compiled on load by swc with the project's .swcrc (its @app/* paths).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { WorkerOptions } from 'node:worker_threads';

export interface WorkerScript {
  script: string;
  options: WorkerOptions;
}

const FROM_SOURCES = `
const fs = require('node:fs');
const path = require('node:path');
const { workerData } = require('node:worker_threads');
const { transformSync } = require('@swc/core');
const swcrc = JSON.parse(fs.readFileSync(path.join(workerData.root, '.swcrc'), 'utf8'));
delete swcrc.exclude;
delete swcrc.$schema;
swcrc.jsc.baseUrl = workerData.root;
require.extensions['.ts'] = (module, file) =>
  module._compile(transformSync(fs.readFileSync(file, 'utf8'), { ...swcrc, swcrc: false, filename: file }).code, file);
require(workerData.file);
`;

function projectRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, '.swcrc'))) return dir;
  throw new Error(`No .swcrc above ${from}`);
}

/** `name` without its extension, in `dir` (the caller's __dirname). */
export function workerScript(dir: string, name: string): WorkerScript {
  const built = join(dir, `${name}.js`);
  if (existsSync(built)) return { script: built, options: {} };
  const file = join(dir, `${name}.ts`);
  return { script: FROM_SOURCES, options: { eval: true, workerData: { root: projectRoot(dir), file } } };
}
