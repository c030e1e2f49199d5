export * from './workflow.repository';
export * from './typeorm-workflow.repository';
export * from './api-key.repository';
export * from './trigger-hook.repository';
export * from './schedule.repository';
export * from './step-summary.repository';
