export * from './builtin-tools';
export * from './parse-tool';
