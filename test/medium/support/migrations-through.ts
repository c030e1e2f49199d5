// A data source over a scratch database whose migrations stop at the one a spec is about: `runMigrations`
// brings the schema up to it and `undoLastMigration` takes that one back, however many come after it.
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/persistence';
import { migrations } from '../../../libs/persistence/src/migrations';

export function dataSourceThrough(databaseUrl: string, last: new () => unknown): DataSource {
  const end = migrations.indexOf(last);
  if (end < 0) throw new Error(`${last.name} is not a registered migration`);
  return new DataSource({ ...dataSourceOptions(databaseUrl), migrations: migrations.slice(0, end + 1) });
}

/** The URL of a scratch database beside the test database (`<test db>_<suffix>`), for one migration's spec. */
export function scratchUrl(suffix: string): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_${suffix}`;
  return url.toString();
}

export async function dropScratch(suffix: string): Promise<void> {
  const server = new URL(scratchUrl(suffix));
  const name = server.pathname.slice(1);
  server.pathname = '/';
  const connection = await createConnection(server.toString());
  await connection.query(`DROP DATABASE IF EXISTS \`${name}\``).finally(() => connection.end());
}
