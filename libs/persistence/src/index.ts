export * from './data-source';
export * from './migrate';
