/**
 * Test helper: splits one haproxy.cfg line into the words HAProxy's parser would see (its quoting rules: `'…'`
 * verbatim, `"…"` with backslash escapes, a backslash escaping one character, `#` starting a comment). Strict where
 * HAProxy would interpret: a `$` outside single quotes (environment expansion) or an unclosed quote is an error, so
 * a test using it fails on any rendering that leaves user text open to interpretation.
 */
export function configWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new SyntaxError(`unclosed ' in ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const [text, end] = weakQuoted(line, i + 1);
      word = (word ?? '') + text;
      i = end;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new SyntaxError(`trailing backslash in ${line}`);
      word = (word ?? '') + line[++i];
    } else if (c === '$') {
      throw new SyntaxError(`unquoted $ in ${line}`);
    } else if (c === '#') {
      break;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

function weakQuoted(line: string, start: number): [string, number] {
  let text = '';
  for (let i = start; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') return [text, i];
    if (c === '$') throw new SyntaxError(`$ in double quotes in ${line}`);
    text += c === '\\' ? line[++i] : c;
  }
  throw new SyntaxError(`unclosed " in ${line}`);
}
