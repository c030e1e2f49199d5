export * from './provider-rate.repository';
export * from './typeorm-provider-rate.repository';
