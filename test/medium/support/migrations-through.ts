// A data source over a scratch database whose migrations stop at the one a spec is about: `runMigrations`
// brings the schema up to it and `undoLastMigration` takes that one back, however many come after it.
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/persistence';
import { migrations } from '../../../libs/persistence/src/migrations';

export function dataSourceThrough(databaseUrl: string, last: new () => unknown): DataSource {
  const end = migrations.indexOf(last);
  if (end < 0) throw new Error(`${last.name} is not a registered migration`);
  return new DataSource({ ...dataSourceOptions(databaseUrl), migrations: migrations.slice(0, end + 1) });
}
