/**
 * Python's repr() of a JSON value (None, True, 'text', [..], {'k': v}) and of a tuple: what a
 * FastAPI server puts in an error message when it formats a pydantic error list with str(), as
 * TensorRT-LLM's request-validation handler does (wire-trtllm.ts).
 */
function reprString(text: string): string {
  // Python picks single quotes unless the text has one and no double quote.
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\' || ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  // Python and JavaScript print the numbers JSON carries alike (exponents of tiny floats aside).
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return reprString(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>).map(([key, item]) => `${reprString(key)}: ${pythonRepr(item)}`).join(', ')}}`;
}

export function pythonTupleRepr(items: readonly unknown[]): string {
  return items.length === 1 ? `(${pythonRepr(items[0])},)` : `(${items.map(pythonRepr).join(', ')})`;
}
