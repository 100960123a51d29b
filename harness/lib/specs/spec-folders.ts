/**
 * Where the repository's declarative specs live: engines/ and workloads/ of the harness's own
 * checkout. The store reads them to check what results claim (an engine name, a scenario), the
 * measuring tool to run them; both must read the same folders.
 */
import { fileURLToPath } from 'node:url';

export const ENGINES_DIR = fileURLToPath(new URL('../../../engines', import.meta.url));
export const WORKLOADS_DIR = fileURLToPath(new URL('../../../workloads', import.meta.url));
