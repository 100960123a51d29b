/** A command line as a POSIX shell reads it back: arguments outside a safe set are single-quoted. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}
