/**
 * The fake SLURM's two ways to say no (fake-slurm.ts's header lists what it implements): SLURM's
 * own error for a request SLURM itself refuses, and one generic refusal for everything SLURM
 * accepts but the fake does not implement, so a script that starts using a new option, format
 * field or input variable fails loudly here instead of being half-run.
 */

/** An error the command prints as `<command>: error: <message>` and exits 1 on, as SLURM's commands do. */
export class SlurmError extends Error {}

/** The one refusal for what SLURM has and the fake does not (what: e.g. "sbatch option --array"). */
export function notImplemented(what: string): never {
  throw new SlurmError(
    `not implemented: ${what} (the fake SLURM in tests/kit/fakes/slurm keeps only what servebench's scripts use; ` +
      "teach it faithfully, citing SLURM's documentation, before a script relies on it)",
  );
}
