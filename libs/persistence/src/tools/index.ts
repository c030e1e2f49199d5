export * from './tool.repository';
