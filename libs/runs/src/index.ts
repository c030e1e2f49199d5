// The life of a run, whoever starts it: what a new or resumed run records and hands to Temporal, and the
// tool manifests a save stores and a start compares. Plain classes over persistence's repositories: the
// apps wire them (no framework here).
export * from './prepared-run';
export * from './run-preparer';
export * from './run-resumer';
export * from './tool-manifest.service';
