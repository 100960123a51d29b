/**
 * A query's result as an Arrow IPC stream: the form duckdb-wasm ingests natively
 * (insertArrowFromIPCStream), with no extension to fetch at run time. Strings are
 * dictionary-encoded (configuration columns repeat on every row).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { Bool, Float64, Int32, Table, tableToIPC, Utf8, Dictionary, vectorFromArray, type Vector } from 'apache-arrow';

/** Arrow types the site reads; a query casts its columns to these SQL types. */
export type ArrowColumnType = 'VARCHAR' | 'DOUBLE' | 'INTEGER' | 'BOOLEAN';

export async function queryToArrowIpc(connection: DuckDBConnection, sql: string, types: Record<string, ArrowColumnType>): Promise<Uint8Array> {
  const reader = await connection.runAndReadAll(sql);
  const columns = reader.getColumnsObjectJS() as Record<string, unknown[]>;
  const vectors: Record<string, Vector> = {};
  for (const [name, values] of Object.entries(columns)) {
    const type = types[name];
    if (type === undefined) throw new Error(`queryToArrowIpc: column ${name} has no declared type`);
    if (type === 'VARCHAR') vectors[name] = vectorFromArray(values as Array<string | null>, new Dictionary(new Utf8(), new Int32()));
    else if (type === 'DOUBLE') vectors[name] = vectorFromArray(values.map((v) => (v === null ? null : Number(v))), new Float64());
    else if (type === 'INTEGER') vectors[name] = vectorFromArray(values.map((v) => (v === null ? null : Number(v))), new Int32());
    else vectors[name] = vectorFromArray(values as Array<boolean | null>, new Bool());
  }
  return tableToIPC(new Table(vectors), 'stream');
}
