export * from './workflow.repository';
export * from './typeorm-workflow.repository';
export * from './trigger-hook.repository';
export * from './step-summary.repository';
export { uuidTaken } from './uuid-claims';
export * from './workflow-version.repository';
