export * from './parse-schedule';
