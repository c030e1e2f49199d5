export * from './schedule.repository';
