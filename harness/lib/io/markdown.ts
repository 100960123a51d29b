/**
 * Markdown that servebench writes for GitHub (issue bodies, step summaries, pull request
 * comments): one rule for numbers, one for untrusted text in a table cell.
 */

/** A measurement as reports show it: whole above 100, one decimal above 10, else 3 significant digits. */
export function significant(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toPrecision(3);
}

/**
 * Untrusted text in a table cell: on one line (a newline ends the table), with the characters
 * that would end the cell or start markup escaped. `&`, `#` and `;` are left alone, so HTML
 * entities a caller wrote (alert-markdown.ts neutralizes mentions that way) survive.
 */
export function escapeTableCell(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/[|\\`*_<>[\]]/g, (c) => `\\${c}`);
}
