/**
 * Where a JSON text stops being JSON, as a line and column a person can find in an editor.
 * `JSON.parse` says what went wrong but not always where (V8 on Node 20 gives a position for some
 * errors and quotes the text for others), so this scanner walks the text by the JSON grammar
 * (RFC 8259) and reports the first offending character. Pure; used only after `JSON.parse` failed.
 */
export interface JsonSyntaxError {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units (what editors show for most text). */
  column: number;
  /** What the scanner expected there, in words. */
  message: string;
}

export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let at = 0;
  const fail = (message: string): never => {
    throw new ScanStop(at, message);
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at += 1;
  };
  const found = () => (at >= text.length ? 'the end of the file' : `"${text[at]}"`);
  const literal = (word: string) => {
    for (const char of word) {
      if (text[at] !== char) fail(`expected "${word}", found ${found()}`);
      at += 1;
    }
  };
  const string = () => {
    at += 1; // the opening quote
    for (;;) {
      if (at >= text.length) fail('this string is not closed (a missing ")');
      const char = text[at]!;
      if (char === '"') return void (at += 1);
      if (char === '\\') {
        at += 1;
        const escape = text[at];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail('a \\u escape needs four hexadecimal digits');
          at += 5;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) at += 1;
        else fail(`"\\${escape ?? ''}" is not a JSON escape`);
      } else if (char < ' ') fail('a line break or control character inside a string (write \\n)');
      else at += 1;
    }
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(at));
    if (!match) fail(`expected a value, found ${found()}`);
    at += match![0].length;
  };
  const value = (depth: number): void => {
    if (depth > 512) fail('nested too deeply');
    space();
    const char = text[at];
    if (char === '{') return object(depth);
    if (char === '[') return array(depth);
    if (char === '"') return string();
    if (char === 't') return literal('true');
    if (char === 'f') return literal('false');
    if (char === 'n') return literal('null');
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
    fail(`expected a value, found ${found()}`);
  };
  const object = (depth: number) => {
    at += 1;
    space();
    if (text[at] === '}') return void (at += 1);
    for (;;) {
      space();
      if (text[at] !== '"') fail(`expected a key in double quotes, found ${found()}`);
      string();
      space();
      if (text[at] !== ':') fail(`expected ":" after the key, found ${found()}`);
      at += 1;
      value(depth + 1);
      space();
      if (text[at] === ',') {
        at += 1;
        space();
        if (text[at] === '}') fail('a comma before "}" (JSON allows no trailing comma)');
        continue;
      }
      if (text[at] === '}') return void (at += 1);
      fail(`expected "," or "}", found ${found()}`);
    }
  };
  const array = (depth: number) => {
    at += 1;
    space();
    if (text[at] === ']') return void (at += 1);
    for (;;) {
      value(depth + 1);
      space();
      if (text[at] === ',') {
        at += 1;
        space();
        if (text[at] === ']') fail('a comma before "]" (JSON allows no trailing comma)');
        continue;
      }
      if (text[at] === ']') return void (at += 1);
      fail(`expected "," or "]", found ${found()}`);
    }
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) at = 1; // a byte-order mark (Windows editors write one); the reader skips it too
    value(0);
    space();
    if (at < text.length) fail(`expected the end of the file after the value, found ${found()}`);
    return undefined;
  } catch (error) {
    if (!(error instanceof ScanStop)) throw error;
    return { ...lineAndColumn(text, error.offset), message: error.message };
  }
}

class ScanStop extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lines = before.split(/\r\n|\n|\r/);
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}
