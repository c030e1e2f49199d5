export * from './run.records';
export * from './run.repository';
export * from './typeorm-run.repository';
export * from './tool.repository';
export * from './run-preparer';
export * from './run-resumer';
export * from './prepared-run';
export * from './tool-manifest.service';
