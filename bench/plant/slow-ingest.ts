/**
 * A planted regression for the self-benchmark gate's own test (bench/gate.ts): loaded with
 * `--import` into a compile process (bench:compile --plant slow-ingest), it makes the store's
 * ingest take twice its time, by busy-waiting after each ingest for as long as the ingest took.
 * The CPU stays busy as real work would; nothing of servebench's code changes. Module hooks
 * rewrite harness/store/store.ts as it loads (after tsx has made it JavaScript): `ingest` is a
 * function declaration, so reassigning it inside its module rebinds the export compile calls.
 */
import { registerHooks } from 'node:module';

const WRAP = `
;{ const plantedOriginal = ingest;
  ingest = async function (...args) {
    const started = performance.now();
    const report = await plantedOriginal(...args);
    const until = performance.now() + (performance.now() - started);
    while (performance.now() < until);
    return report;
  };
}
`;

registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (!url.endsWith('/harness/store/store.ts')) return loaded;
    const source = typeof loaded.source === 'string' ? loaded.source : Buffer.from(loaded.source as Uint8Array).toString('utf8');
    if (!/\bfunction ingest\(/.test(source)) throw new Error('slow-ingest plant: harness/store/store.ts has no function ingest any more; update bench/plant/slow-ingest.ts');
    process.stderr.write(`bench plant slow-ingest: ingest in ${url} runs twice as long\n`);
    return { ...loaded, source: `${source}${WRAP}` };
  },
});
