export * from './evaluation.repository';
