/**
 * A table as an Arrow IPC stream: the form duckdb-wasm ingests natively (insertArrowFromIPCStream),
 * with no extension to fetch at run time. Numbers are copied from DuckDB's vectors as typed
 * arrays, chunk by chunk; strings are dictionary-encoded by DuckDB itself (dense_rank codes plus
 * the sorted distinct values), since configuration columns repeat on every row and decoding each
 * string in JS costs a microsecond.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { Bool, Dictionary, Float64, Int32, makeData, makeVector, Table, tableFromIPC, tableToIPC, Utf8, vectorFromArray, type Vector } from 'apache-arrow';

/** Arrow types the site reads; a query casts its columns to these SQL types. */
export type ArrowColumnType = 'VARCHAR' | 'DOUBLE' | 'INTEGER' | 'BOOLEAN';

interface TypedVector {
  /** DOUBLE and INTEGER vectors expose their data as a typed array. */
  readonly items: Float64Array | Int32Array;
  readonly validity: { itemValid(index: number): boolean };
  getItem(index: number): unknown;
}

/** Growable column: values (or dictionary indices) and validity, one byte per row until packed. */
class ColumnBuilder {
  readonly type: ArrowColumnType;
  private values: Float64Array | Int32Array | Uint8Array;
  private valid = new Uint8Array(4096);
  /** VARCHAR: the values the codes index. */
  dictionary: string[] = [];
  length = 0;
  nulls = 0;

  constructor(type: ArrowColumnType) {
    this.type = type;
    this.values = type === 'DOUBLE' ? new Float64Array(4096) : type === 'BOOLEAN' ? new Uint8Array(4096) : new Int32Array(4096);
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.valid.length) return;
    const size = Math.max(this.valid.length * 2, this.length + extra);
    const values = this.type === 'DOUBLE' ? new Float64Array(size) : this.type === 'BOOLEAN' ? new Uint8Array(size) : new Int32Array(size);
    values.set(this.values);
    this.values = values;
    const valid = new Uint8Array(size);
    valid.set(this.valid);
    this.valid = valid;
  }

  append(vector: TypedVector, rows: number): void {
    this.reserve(rows);
    for (let i = 0; i < rows; i++) {
      const at = this.length + i;
      if (!vector.validity.itemValid(i)) {
        this.nulls += 1;
        continue;
      }
      this.valid[at] = 1;
      if (this.type === 'BOOLEAN') {
        this.values[at] = vector.getItem(i) ? 1 : 0;
      } else {
        this.values[at] = vector.items[i]!;
      }
    }
    this.length += rows;
  }

  private packedBits(bytes: Uint8Array): Uint8Array {
    const bits = new Uint8Array(Math.ceil(this.length / 8));
    for (let i = 0; i < this.length; i++) if (bytes[i]) bits[i >> 3]! |= 1 << (i & 7);
    return bits;
  }

  build(): Vector {
    const nullBitmap = this.packedBits(this.valid);
    const common = { length: this.length, nullCount: this.nulls, nullBitmap };
    if (this.type === 'DOUBLE') return makeVector(makeData({ type: new Float64(), ...common, data: this.values.subarray(0, this.length) as Float64Array }));
    if (this.type === 'INTEGER') return makeVector(makeData({ type: new Int32(), ...common, data: this.values.subarray(0, this.length) as Int32Array }));
    if (this.type === 'BOOLEAN') return makeVector(makeData({ type: new Bool(), ...common, data: this.packedBits(this.values as Uint8Array) }));
    const dictionary = vectorFromArray(this.dictionary, new Utf8());
    return makeVector(makeData({ type: new Dictionary(new Utf8(), new Int32()), ...common, data: this.values.subarray(0, this.length) as Int32Array, dictionary }));
  }
}

export interface ArrowColumn {
  readonly name: string;
  readonly type: ArrowColumnType;
  /** SQL expression over `from`, of the column's type. */
  readonly sql: string;
}

export interface ArrowQuery {
  /** Table or subquery, with any WHERE clause. */
  readonly from: string;
  readonly orderBy: string;
  readonly columns: readonly ArrowColumn[];
}

function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function queryToArrowIpc(connection: DuckDBConnection, query: ArrowQuery): Promise<Uint8Array> {
  // Materialized once: the source may be an expensive view, and every column reads it again.
  const staged = '__arrow_export';
  // Row order is carried as a column: the store does not preserve insertion order.
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${staged} AS SELECT row_number() OVER (ORDER BY ${query.orderBy}) AS __row, ${query.columns.map((c) => `CAST(${c.sql} AS ${c.type}) AS ${quoted(c.name)}`).join(', ')} FROM ${query.from}`);
  try {
    const builders = query.columns.map((c) => new ColumnBuilder(c.type));
    // Each string column becomes an ENUM of its sorted distinct values; enum_code() is then the
    // dictionary index, computed by DuckDB without a sort per column.
    const enums: string[] = [];
    for (const [i, c] of query.columns.entries()) {
      if (c.type !== 'VARCHAR') continue;
      const distinct = await connection.runAndReadAll(`SELECT DISTINCT ${quoted(c.name)} AS v FROM ${staged} WHERE v IS NOT NULL ORDER BY v`);
      builders[i]!.dictionary = (distinct.getColumnsJS()[0] ?? []) as string[];
      const name = `__arrow_enum_${i}`;
      await connection.run(`DROP TYPE IF EXISTS ${name}`);
      await connection.run(`CREATE TYPE ${name} AS ENUM (SELECT DISTINCT ${quoted(c.name)} FROM ${staged} WHERE ${quoted(c.name)} IS NOT NULL ORDER BY 1)`);
      enums[i] = name;
    }
    const select = query.columns.map((c, i) => (c.type === 'VARCHAR' ? `enum_code(CAST(${quoted(c.name)} AS ${enums[i]}))::INTEGER` : quoted(c.name)));
    const result = await connection.stream(`SELECT ${select.join(', ')} FROM ${staged} ORDER BY __row`);
    for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      for (let c = 0; c < builders.length; c++) builders[c]!.append(chunk.getColumnVector(c) as unknown as TypedVector, chunk.rowCount);
    }
    return tableToIPC(new Table(Object.fromEntries(query.columns.map((c, i) => [c.name, builders[i]!.build()]))), 'stream');
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${staged}`);
    for (const [i, c] of query.columns.entries()) if (c.type === 'VARCHAR') await connection.run(`DROP TYPE IF EXISTS __arrow_enum_${i}`);
  }
}

/**
 * Cuts an Arrow IPC stream sorted by scenario_id into one stream per scenario (zero-copy slices),
 * leaving out `drop` columns. Returns [scenario_id, bytes] pairs.
 */
export function splitByScenario(ipc: Uint8Array, drop: readonly string[]): Array<[string, Uint8Array]> {
  const full = tableFromIPC(ipc);
  const keep = full.schema.fields.map((f) => f.name).filter((name) => !drop.includes(name));
  const table = full.select(keep);
  const ids = full.getChild('scenario_id');
  if (ids === null) throw new Error('splitByScenario: no scenario_id column');
  const parts: Array<[string, Uint8Array]> = [];
  let start = 0;
  for (let i = 1; i <= table.numRows; i++) {
    if (i < table.numRows && ids.get(i) === ids.get(start)) continue;
    parts.push([String(ids.get(start)), tableToIPC(table.slice(start, i), 'stream')]);
    start = i;
  }
  return parts;
}
