// Creates the database if it is missing, then runs pending migrations. Used by the CLI and test set-up.
import { createConnection } from 'mysql2/promise';
import { createDataSource } from './data-source';

export async function ensureDatabase(databaseUrl: string): Promise<string> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[\w$]+$/.test(name)) throw new Error(`DATABASE_URL must name a database made of letters, digits and _ (got "${name}")`);
  url.pathname = '/';
  const connection = await createConnection(url.toString());
  try {
    await connection.query(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await connection.end();
  }
  return name;
}

/** Returns the names of the migrations it ran. */
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const dataSource = await createDataSource(databaseUrl).initialize();
  try {
    const ran = await dataSource.runMigrations({ transaction: 'each' });
    return ran.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
