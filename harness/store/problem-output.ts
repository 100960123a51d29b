/** Problems as text lines, JSON, or GitHub Actions annotations (::error file=…::…). */
import type { ResultProblem } from './check-result.ts';

export function formatProblemLine(p: ResultProblem): string {
  return `${p.file}${p.path ? `: ${p.path}` : ''}: ${p.message} (fix: ${p.fix})`;
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
