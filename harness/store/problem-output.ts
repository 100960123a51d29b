/** Problems as text lines, JSON, or GitHub Actions annotations (::error file=…::…). */
import type { ResultProblem } from './check-result.ts';

/** Line breaks, control and bidi characters as \u escapes: a problem is one line that shows what it holds. */
function visible(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

/**
 * One line per problem. File names come from contributors: a line never starts with "::" (inside
 * GitHub Actions a log line that does is a workflow command, e.g. ::stop-commands::), never holds
 * "##[", and never spans two lines.
 */
export function formatProblemLine(p: ResultProblem): string {
  // The runner also reads the older "##[command]" form anywhere in a line.
  const line = visible(`${p.file}${p.path ? `: ${p.path}` : ''}: ${p.message} (fix: ${p.fix})`).replaceAll('##[', '## [');
  return line.trimStart().startsWith(':') ? `./${line}` : line;
}

/** Annotation escaping as the Actions runner defines it (data: % CR LF; properties also : and ,). */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function githubAnnotation(p: ResultProblem, prefix: string): string {
  return `::error file=${escapeProperty(`${prefix}${p.file}`)},title=${escapeProperty(`servebench: ${p.path || 'file'}`)}::${escapeData(`${p.message} (fix: ${p.fix})`)}`;
}
