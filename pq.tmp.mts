import { openStore } from './harness/store/store.ts';
import { analyze, storePath, tableQueries } from './harness/store/compile.ts';
import { loadPrices } from './harness/store/prices.ts';
const s = await openStore(storePath('/tmp/out100k'));
await analyze(s, '/tmp/syn100k', loadPrices());
const c = s.connection;
const q = tableQueries();
for (const [name, codec] of [['points', 'zstd'], ['points', 'snappy'], ['metrics', 'zstd'], ['metrics', 'snappy'], ['runs', 'zstd']]) {
  const t = performance.now();
  await c.run(`COPY (${q[name]}) TO '/tmp/pq-${name}-${codec}.parquet' (FORMAT parquet, COMPRESSION ${codec})`);
  console.log(name, codec, (performance.now() - t).toFixed(0));
}
s.close();
