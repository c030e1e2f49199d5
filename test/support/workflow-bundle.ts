// The run workflow bundled once per test run (global set-up) and shared by every in-process worker.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
export const WORKFLOW_BUNDLE_PATH = path.join(process.env.STEPWISE_DATA_DIR ?? path.join(ROOT, '.data'), 'test', 'workflow-bundle.js');
export const WORKFLOWS_SOURCE = path.join(ROOT, 'libs/engine/src/workflows/index.ts');

export function aliasesFor(root = ROOT): Record<string, string> {
  return Object.fromEntries(['contracts', 'domain'].map((lib) => [`@app/${lib}`, path.join(root, `libs/${lib}/src`)]));
}

export function loadWorkflowBundle(): { code: string } {
  return { code: readFileSync(WORKFLOW_BUNDLE_PATH, 'utf8') };
}
