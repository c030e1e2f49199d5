export * from './resume-plan';
export * from './human-answer';
export * from './run-admission';
export * from './poison-calls';
