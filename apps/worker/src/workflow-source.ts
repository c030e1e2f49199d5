// Where the worker's workflow code is: bundled once by `npm run build` (cli/bundle-workflows), so a
// worker never loads webpack; bundled at start when tracing is on (the OpenTelemetry plugin adds its
// workflow interceptors as the code is bundled) or when a build skipped that step.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowSource } from './create-worker';

/** The compiled workflow modules (dist/libs/engine/src/workflows), as webpack's entry. */
export const WORKFLOWS_PATH = require.resolve('../../../libs/engine/src/workflows');

/** The bundle `npm run build` writes beside the worker's compiled code (dist/apps/worker/). */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../workflow-bundle.js');

export function workflowSource(tracing: boolean): WorkflowSource {
  return !tracing && existsSync(WORKFLOW_BUNDLE_PATH)
    ? { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } }
    : { workflowsPath: WORKFLOWS_PATH };
}
