export * from './keyring';
export * from './secret-box';
