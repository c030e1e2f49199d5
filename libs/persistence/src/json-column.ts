import type { ValueTransformer } from 'typeorm';

/** JSON stored in LONGTEXT columns: the same mapping on MySQL 8 and MariaDB. */
export const jsonColumn: ValueTransformer = {
  to: (value: unknown) => (value === undefined ? undefined : JSON.stringify(value)),
  from: (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value),
};
