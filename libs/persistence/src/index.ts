export * from './data-source';
export * from './migrate';
export * from './definitions';
export * from './persistence.module';
export * from './runs';
