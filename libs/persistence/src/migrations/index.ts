import { Definitions1763800000000 } from './1763800000000-definitions';

// Every migration, in order. Add new ones at the end; never edit one that has shipped.
export const migrations: (new () => unknown)[] = [Definitions1763800000000];
