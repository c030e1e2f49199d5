// One entity row's INSERT or UPDATE as a plain statement, for the writes every step makes (its start, its
// call's rows, its output). TypeORM's query builders cost 80–150 µs of the worker's CPU to build one such
// statement (their property-name pass runs a regular expression per column over the whole query); these take
// the column names, and the values as TypeORM prepares them (transformers, dates), from the entity's metadata.
import type { EntityManager, EntityMetadata, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { Statement, StatementResult } from './one-trip-pool';

type Entity<E> = new () => E;

/** The column `property` maps to (a mistyped property is a bug: thrown). */
function columnOf(metadata: EntityMetadata, property: string): ColumnMetadata {
  const column = metadata.findColumnWithPropertyName(property);
  if (!column) throw new Error(`${metadata.tableName} has no column for ${property}`);
  return column;
}

const quoted = (column: ColumnMetadata) => `\`${column.databaseName}\``;

/** The row's columns that have a value, and their values as the driver stores them. */
function columnsOf<E extends ObjectLiteral>(manager: EntityManager, entity: Entity<E>, row: Partial<E>) {
  const metadata = manager.connection.getMetadata(entity);
  const columns = metadata.columns.filter((column) => column.isInsert && column.getEntityValue(row) !== undefined);
  return {
    metadata,
    names: columns.map(quoted),
    values: columns.map((column) => manager.connection.driver.preparePersistentValue(column.getEntityValue(row), column)),
  };
}

/**
 * An INSERT of one entity row; with `updateOnDuplicate` (properties), where its key is taken those columns
 * take the new values instead (MySQL's upsert, as TypeORM's `orUpdate` writes it).
 */
export function insertRow<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: Entity<E>,
  row: Partial<E>,
  updateOnDuplicate: string[] = [],
): Statement {
  const { metadata, names, values } = columnsOf(manager, entity, row);
  const update = updateOnDuplicate
    .map((property) => quoted(columnOf(metadata, property)))
    .map((column) => `${column} = VALUES(${column})`)
    .join(', ');
  return {
    sql: `INSERT INTO \`${metadata.tableName}\` (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})${update ? ` ON DUPLICATE KEY UPDATE ${update}` : ''}`,
    params: values,
  };
}

/**
 * An INSERT of one entity row that writes only where `from` (a FROM ... WHERE clause, its values in
 * `fromParams`) finds a row.
 */
export function insertWhere<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: Entity<E>,
  row: Partial<E>,
  from: string,
  fromParams: unknown[],
): Statement {
  const { metadata, names, values } = columnsOf(manager, entity, row);
  return {
    sql: `INSERT INTO \`${metadata.tableName}\` (${names.join(', ')}) SELECT ${names.map(() => '?').join(', ')} FROM ${from}`,
    params: [...values, ...fromParams],
  };
}

/**
 * An UPDATE of row `uuid` of `entity` setting `values` (properties to values) and `computed` (properties to
 * SQL expressions), only where `condition` holds too.
 */
export function updateRow<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: Entity<E>,
  uuid: string,
  { values, computed = {}, condition }: { values: Partial<E>; computed?: Record<string, string>; condition: Statement },
): Statement {
  const metadata = manager.connection.getMetadata(entity);
  const set = Object.entries(values).map(([property, value]) => {
    const column = columnOf(metadata, property);
    return { sql: `${quoted(column)} = ?`, value: manager.connection.driver.preparePersistentValue(value, column) };
  });
  const expressions = Object.entries(computed).map(([property, sql]) => `${quoted(columnOf(metadata, property))} = ${sql}`);
  return {
    sql: `UPDATE \`${metadata.tableName}\` SET ${[...set.map((column) => column.sql), ...expressions].join(', ')} WHERE uuid = ? AND ${condition.sql}`,
    params: [...set.map((column) => column.value), uuid, ...condition.params],
  };
}

/** Sends one statement on `manager` (outside a one-trip transaction); its result as the driver gives it. */
export function execute(manager: EntityManager, { sql, params }: Statement): Promise<StatementResult> {
  return manager.query(sql, params) as Promise<StatementResult>;
}
