export * from './run.records';
export * from './run.repository';
export * from './typeorm-run.repository';
export * from './tool.repository';
