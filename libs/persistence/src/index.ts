export * from './data-source';
