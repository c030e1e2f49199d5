export * from './dataset';
export * from './assertions';
export * from './evaluation-report';
