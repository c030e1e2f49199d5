// `npm run build`'s last step: bundles the compiled workflow code once, so that workers start without
// webpack (2 s of CPU at every start, and about 80 MB more at its peak).
import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';
import { preloadedModules, WORKFLOW_BUNDLE_PATH, WORKFLOWS_PATH } from '../workflow-source';

async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    preloadModules: preloadedModules(WORKFLOWS_PATH),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  writeFileSync(WORKFLOW_BUNDLE_PATH, code);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
