// Every migration, in order. Add new ones at the end; never edit one that has shipped.
export const migrations: (new (...args: never[]) => unknown)[] = [];
