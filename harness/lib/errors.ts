/**
 * The one user-facing error type. Thrown anywhere, caught only in harness/cli.ts,
 * printed as a single line (no stack unless --debug), exiting with its code.
 */
export const EXIT = {
  ok: 0,
  /** The run finished but broke a threshold the user set (e.g. --max-failure-rate). */
  thresholdExceeded: 1,
  /** Bad input: flag, file, URL, or a server that cannot be reached. Nothing was measured. */
  usage: 2,
  /** Measured, but the result file could not be written (the result went to stdout instead). */
  outputFailed: 3,
  /**
   * Measured and written, but `validate` refuses what was written (each broken rule is printed):
   * the file is kept, as the measurement it is, and cannot go into results/ as it stands.
   */
  resultRefused: 4,
  /** A servebench bug: an error other than a ServebenchError reached the CLI (EX_SOFTWARE, sysexits.h). */
  internalError: 70,
  /** Busy: another servebench process holds what this command would write (a compile of the same --out); try again when it has finished (EX_TEMPFAIL, sysexits.h). */
  busy: 75,
  /** Stopped by SIGHUP: the terminal went away. The signal exit codes are 128 + the signal's number. */
  hangup: 129,
  /** Interrupted by SIGINT. */
  interrupted: 130,
  /** Terminated by SIGTERM. */
  terminated: 143,
} as const;

export class ServebenchError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT.usage) {
    super(message);
    this.name = 'ServebenchError';
    this.exitCode = exitCode;
  }
}

export function usageError(message: string): ServebenchError {
  return new ServebenchError(message, EXIT.usage);
}
