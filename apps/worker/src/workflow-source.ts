// Where the worker's workflow code is: bundled once by `npm run build` (cli/bundle-workflows), so a
// worker never loads webpack; bundled at start when tracing is on (the OpenTelemetry plugin adds its
// workflow interceptors as the code is bundled) or when a build skipped that step.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowSource } from './create-worker';

/** The compiled workflow modules (dist/libs/engine/src/workflows), as webpack's entry. */
export const WORKFLOWS_PATH = require.resolve('../../../libs/engine/src/workflows');

/**
 * What every bundle of the workflow code preloads: the workflow modules themselves, evaluated once per reused V8
 * context instead of once per workflow (about 1 ms of the workflow thread a run). They keep no state at module
 * level (proxies, update definitions, constants); a run's state lives in its workflow function and the SDK's
 * activator, which the preloaded modules reach only when called.
 */
export const preloadedModules = (workflowsPath: string): string[] => [workflowsPath];

/** The bundle `npm run build` writes beside the worker's compiled code (dist/apps/worker/). */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../workflow-bundle.js');

export function workflowSource(tracing: boolean): WorkflowSource {
  return !tracing && existsSync(WORKFLOW_BUNDLE_PATH)
    ? { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } }
    : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: { preloadModules: preloadedModules(WORKFLOWS_PATH) } };
}
