/** Moved to harness/lib/bisect-search.ts (the store replays it to check a bisection); kept so importers from here still resolve. */
export * from '../../lib/bisect-search.ts';
