/**
 * A test helper: the words of a shell command line as bash would split them (quotes, backslashes),
 * for tests that check the commands a workflow or a document names against the CLI's option tables.
 */
/** Words of a shell fragment up to its first unquoted operator (|, ;, &, <, >, or a closing parenthesis). */
export function shellWords(fragment: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < fragment.length; i++) {
    const c = fragment[i]!;
    if (c === "'" || c === '"') {
      const end = fragment.indexOf(c, i + 1);
      word = (word ?? '') + fragment.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? fragment.length : end;
    } else if (c === '\\' && i + 1 < fragment.length) {
      word = (word ?? '') + fragment[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if ('|;&<>)'.includes(c)) {
      break;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}
