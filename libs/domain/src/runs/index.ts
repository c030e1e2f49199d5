export * from './resume-plan';
