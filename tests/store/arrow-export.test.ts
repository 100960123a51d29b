/** Arrow export: values, nulls, all-null string columns and row order survive the trip to apache-arrow. */
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { expect, it } from 'vitest';
import { queryToArrowIpc } from '../../harness/store/arrow-export.ts';

it('writes typed columns, dictionary strings, nulls and the requested order', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE t AS SELECT * FROM (VALUES (3, 'b', NULL::VARCHAR, 1.5::DOUBLE, true), (1, 'a', NULL, NULL, false), (2, NULL, NULL, -2.25, NULL)) v(k, s, gpu, x, flag)`);
  // Enough rows to span several DuckDB chunks (2048 rows each).
  await connection.run(`INSERT INTO t SELECT 10 + i, 'z' || (i % 3), NULL, i / 4.0, i % 2 = 0 FROM range(5000) r(i)`);
  const bytes = await queryToArrowIpc(connection, {
    from: 't',
    orderBy: 'k',
    columns: [
      { name: 'k', type: 'INTEGER', sql: 'k' },
      { name: 's', type: 'VARCHAR', sql: 's' },
      { name: 'gpu', type: 'VARCHAR', sql: 'gpu' },
      { name: 'x', type: 'DOUBLE', sql: 'x' },
      { name: 'flag', type: 'BOOLEAN', sql: 'flag' },
    ],
  });
  const rows = tableFromIPC(bytes).toArray().map((r) => r.toJSON());
  expect(rows.slice(0, 3)).toEqual([
    { k: 1, s: 'a', gpu: null, x: null, flag: false },
    { k: 2, s: null, gpu: null, x: -2.25, flag: null },
    { k: 3, s: 'b', gpu: null, x: 1.5, flag: true },
  ]);
  expect(rows).toHaveLength(5003);
  expect(rows[5002]).toEqual({ k: 5009, s: 'z1', gpu: null, x: 4999 / 4, flag: false });
  connection.closeSync();
  instance.closeSync();
});
