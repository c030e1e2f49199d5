export * from './resume-plan';
export * from './human-answer';
export * from './run-bodies';
export * from './run-admission';
export * from './poison-calls';
export * from './replay-report';
