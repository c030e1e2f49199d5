export * from './errors';
export * from './definition';
export * from './placeholders';
export * from './conditions';
export * from './outputs';
export * from './tools';
export * from './schedules';
