/** What a launcher hands the runner: where the server listens, its log, and how to stop it. */
export interface LaunchedServer {
  /** Base URL, e.g. http://127.0.0.1:8000. */
  readonly endpoint: string;
  /** The server's combined stdout/stderr, or null (external endpoints). */
  readonly logFile: string | null;
  readonly launcher: 'process' | 'docker' | 'external';
  readonly command: readonly string[];
  readonly image: string | null;
  readonly imageDigest: string | null;
  /** Process-group id of a process launch (for /proc telemetry), else null. */
  readonly pid: number | null;
  /** Container name of a docker launch (for docker stats), else absent. */
  readonly container?: string;
  /** How it ended, or null while it runs (always null for external endpoints). */
  exitStatus(): { code: number | null; signal: string | null } | null;
  /** Stops it and everything it started; safe to call twice. */
  stop(): Promise<void>;
}
