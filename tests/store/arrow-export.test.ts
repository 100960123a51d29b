/** Arrow export: values, nulls, all-null string columns and row order survive the trip to apache-arrow. */
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { expect, it } from 'vitest';
import { queryToArrowIpc, splitByScenario } from '../../harness/store/arrow-export.ts';

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

it('splits a stream sorted by scenario into one file per scenario, dropping columns', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE t AS SELECT * FROM (VALUES ('s1', 'r1', 1.0), ('s1', 'r2', 2.0), ('s2', 'r3', 3.0), ('s3', 'r4', 4.0), ('s3', 'r5', 5.0)) v(scenario_id, run_id, x)`);
  const bytes = await queryToArrowIpc(connection, { from: 't', orderBy: 'scenario_id, x', columns: [{ name: 'scenario_id', type: 'VARCHAR', sql: 'scenario_id' }, { name: 'run_id', type: 'VARCHAR', sql: 'run_id' }, { name: 'x', type: 'DOUBLE', sql: 'x' }] });
  const parts = splitByScenario(bytes, ['run_id']).map(([id, part]) => [id, tableFromIPC(part).toArray().map((r) => r.toJSON())]);
  expect(parts).toEqual([
    ['s1', [{ scenario_id: 's1', x: 1 }, { scenario_id: 's1', x: 2 }]],
    ['s2', [{ scenario_id: 's2', x: 3 }]],
    ['s3', [{ scenario_id: 's3', x: 4 }, { scenario_id: 's3', x: 5 }]],
  ]);
  connection.closeSync();
  instance.closeSync();
});
