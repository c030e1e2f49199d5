// A run's life, whoever starts it: how it is recorded (RunPreparer, RunResumer) and started (RunStarter), read
// as it stands (RunReader), asked things while in flight (RunInteractions), ended (run-ending.ts: the rules the
// run's repository executes) and brought in line with Temporal (RunReconciler); the tool manifests a save
// stores and a start compares. Plain classes over persistence's repositories and the RunLauncher port; the
// apps take them wired from RunLifeModule.
export * from './run-ending';
export * from './run-interactions';
export * from './run-launcher';
export * from './run-life.module';
export * from './run-log';
export * from './run-preparer';
export * from './run-reader';
export * from './run-reconciler';
export * from './run-replayer';
export * from './run-resumer';
export * from './run-starter';
export * from './sub-workflow-pins';
export * from './tool-manifest.service';
export * from './spend-policy';
export * from './spend-rechecks';
