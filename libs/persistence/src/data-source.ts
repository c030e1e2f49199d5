// The one TypeORM data source: the API, the worker, the migration CLI and the tests all build it here.
// The schema changes only through migrations; synchronize stays off.
import { DataSource, type DataSourceOptions } from 'typeorm';
import { definitionEntities } from './definitions/entities';
import { runEntities } from './runs/entities';
import { migrations } from './migrations';

export function dataSourceOptions(databaseUrl: string): DataSourceOptions {
  return {
    type: 'mysql',
    url: databaseUrl,
    entities: [...definitionEntities, ...runEntities],
    migrations,
    synchronize: false,
    migrationsRun: false,
    timezone: 'Z',
    charset: 'utf8mb4',
    supportBigNumbers: true,
    bigNumberStrings: false,
    extra: { connectionLimit: 10 },
  };
}

export function createDataSource(databaseUrl: string): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl));
}
