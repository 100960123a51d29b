import { DuckDBInstance } from '@duckdb/node-api';

/** Rows of one SQL statement in a fresh in-memory DuckDB (the tests read the published Parquet with it). */
export async function query(sql: string): Promise<Array<Record<string, unknown>>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS() as Array<Record<string, unknown>>;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
