/**
 * An in-memory DuckDB for a test file's SQL: opened before its tests, closed after them. The
 * store's SQL runs as compile runs it, against tables a test makes by hand.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll } from 'vitest';

export function memoryDuckDb(): { readonly connection: DuckDBConnection } {
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });
  return {
    get connection(): DuckDBConnection {
      if (connection === undefined) throw new Error('memoryDuckDb: the connection opens in beforeAll; use it inside a test');
      return connection;
    },
  };
}
