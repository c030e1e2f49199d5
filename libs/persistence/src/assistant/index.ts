export * from './assistant.entities';
export * from './assistant.repository';
export * from './typeorm-assistant.repository';
