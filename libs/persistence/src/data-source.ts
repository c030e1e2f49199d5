// The one TypeORM data source: the API, the worker, the migration CLI and the tests all build it here.
// The schema changes only through migrations; synchronize stays off.
import { DataSource, type DataSourceOptions } from 'typeorm';
import { definitionEntities } from './definitions/entities';
import { runEntities } from './runs/entities';
import { assistantEntities } from './assistant/assistant.entities';
import { McpServerEntity } from './mcp/mcp-server.entity';
import { ApiKeyEntity } from './api-keys/api-key.entity';
import { ScheduleEntity } from './schedules/schedule.entity';
import { ToolEntity } from './tools/tool.entity';
import { migrations } from './migrations';

export function dataSourceOptions(databaseUrl: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'mysql',
    url: databaseUrl,
    entities: [...definitionEntities, ...runEntities, ...assistantEntities, McpServerEntity, ApiKeyEntity, ScheduleEntity, ToolEntity],
    migrations,
    synchronize: false,
    migrationsRun: false,
    timezone: 'Z',
    charset: 'utf8mb4',
    supportBigNumbers: true,
    bigNumberStrings: false,
    extra: { connectionLimit: poolSize },
  };
}

/**
 * How a process's DATABASE_POOL_SIZE connections are shared by its two pools: half each (the shared pool the
 * odd one), so the process never opens more than the setting. Past them a statement waits for a connection
 * (the driver's queue, bounded by the worker's activity slots and the API's requests) instead of the server
 * refusing one at its max_connections.
 */
export function poolShares(size: number): { shared: number; oneTrip: number } {
  const oneTrip = Math.max(1, Math.floor(size / 2));
  return { shared: Math.max(1, size - oneTrip), oneTrip };
}

interface PoolWithEvents {
  on(event: 'connection', listener: (connection: { query(sql: string): unknown }) => void): void;
}

/** Every pooled connection runs in UTC, so DB-side CURRENT_TIMESTAMP and the driver agree on any server. */
export const SESSION_IN_UTC = "SET time_zone = '+00:00'";

/** The data source, each of its pooled connections in UTC (SESSION_IN_UTC). */
export function createDataSource(databaseUrl: string, poolSize?: number): DataSource {
  const dataSource = new DataSource(dataSourceOptions(databaseUrl, poolSize));
  const initialize = dataSource.initialize.bind(dataSource);
  dataSource.initialize = async () => {
    await initialize();
    const pool = (dataSource.driver as unknown as { pool: PoolWithEvents }).pool;
    pool.on('connection', (connection) => connection.query(SESSION_IN_UTC));
    await dataSource.query(SESSION_IN_UTC);
    return dataSource;
  };
  return dataSource;
}
