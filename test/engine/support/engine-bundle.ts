// Where the engine specs' workers find the workflow bundle test/engine/global-setup.ts built for this jest run.
export const ENGINE_BUNDLE_ENV = 'STEPWISE_ENGINE_WORKFLOW_BUNDLE';

export function engineBundlePath(): string {
  const file = process.env[ENGINE_BUNDLE_ENV];
  if (!file)
    throw new Error(
      `${ENGINE_BUNDLE_ENV} is not set: run the workflow specs through jest's \`workflow\` project, whose global set-up bundles the workflow code`,
    );
  return file;
}
