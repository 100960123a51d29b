/**
 * The last step of `load` and `run`: a measured result is never lost. It is written to its file
 * (never over another); when that fails (a full disk, a read-only folder, a path through a file)
 * the whole JSON goes to stdout instead, whatever --json said, and the command exits 3.
 */
import { EXIT } from '../../lib/errors.ts';
import { writeNewFileAtomic } from '../../lib/io/atomic-write.ts';

export interface Delivery {
  /** The result as it is written: the same text that any check after the write reads. */
  readonly text: string;
  /** Where it goes; null: nowhere (load without --out). */
  readonly path: string | null;
  /** --json: stdout gets the JSON; otherwise the summary. */
  readonly json: boolean;
  /** The human summary printed on success without --json. */
  summary(): string;
}

export interface Delivered {
  /** Written to delivery.path. */
  readonly written: boolean;
  /** EXIT.outputFailed when the file could not be written, else null. */
  readonly exitCode: number | null;
}

export async function deliverResult(delivery: Delivery, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<Delivered> {
  let writeError: string | null = null;
  if (delivery.path !== null) {
    try {
      await writeNewFileAtomic(delivery.path, delivery.text);
    } catch (error) {
      writeError = `cannot write ${delivery.path}: ${(error as Error).message}`;
    }
  }
  out.write(delivery.json || writeError !== null ? delivery.text : delivery.summary());
  if (writeError !== null) {
    err.write(`servebench: ${writeError}; the result was printed to stdout instead\n`);
    return { written: false, exitCode: EXIT.outputFailed };
  }
  if (delivery.path !== null) err.write(`servebench: wrote ${delivery.path}\n`);
  return { written: delivery.path !== null, exitCode: null };
}
