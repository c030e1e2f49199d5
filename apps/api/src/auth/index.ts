export * from './address-limiter';
export * from './api-key.service';
export * from './auth.decorators';
export * from './auth.module';
export * from './key-cookie';
export * from './bearer';
