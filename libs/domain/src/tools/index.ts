export * from './builtin-tools';
export * from './parse-tool';
export * from './tool-manifest';
