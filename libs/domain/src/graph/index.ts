export * from './graph-issues';
export * from './graph-schema';
export * from './parse-graph';
export * from './chain-graph';
export * from './agentic-document';
export * from './reply-text';
