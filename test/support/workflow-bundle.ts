// The run workflow as the worker runs it: the bundle `npm run build` writes (npm test builds first), shared
// by every in-process worker and the replay spec.
import { readFileSync } from 'node:fs';
import path from 'node:path';

// The repository's root from the sources (jest) or from their build in dist/test/support (a bench).
const ROOT = path.resolve(__dirname, __dirname.split(path.sep).includes('dist') ? '../../..' : '../..');
export const WORKFLOW_BUNDLE_PATH = path.join(ROOT, 'dist/apps/worker/workflow-bundle.js');

export function aliasesFor(root = ROOT): Record<string, string> {
  return Object.fromEntries(['contracts', 'domain'].map((lib) => [`@app/${lib}`, path.join(root, `libs/${lib}/src`)]));
}

export function loadWorkflowBundle(): { code: string } {
  return { code: readFileSync(WORKFLOW_BUNDLE_PATH, 'utf8') };
}
