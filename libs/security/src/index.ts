export * from './keyring';
export * from './secret-box';
export * from './egress';
export * from './payload-cipher';
