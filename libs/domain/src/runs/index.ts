export * from './resume-plan';
export * from './human-answer';
