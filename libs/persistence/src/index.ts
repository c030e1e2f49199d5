export * from './data-source';
export * from './migrate';
export * from './definitions';
export * from './persistence.module';
export * from './runs';
export * from './workflow-owners.repository';
export * from './assistant';
export * from './mcp';
