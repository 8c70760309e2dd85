import { PostgrestErrors } from '../postgrest-error';

/**
 * Deepest nesting of embeds or logic trees we accept. PostgREST has no limit, but the parsers
 * recurse, and a hostile `or=(or(or(...)))` must end as a 400, never a stack overflow (a 500).
 */
export const MAX_NESTING = 32;

/**
 * Position in one parameter being parsed. Failures throw PGRST100 with Parsec's message layout
 * (`"failed to parse <what> (<value>)" (line 1, column N)`), which clients show verbatim.
 */
export class Cursor {
  pos = 0;

  constructor(
    readonly text: string,
    private readonly what: string,
    private readonly shown: string = text,
  ) {}

  get atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  peek(ahead = 0): string {
    return this.text.charAt(this.pos + ahead);
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  eat(s: string): boolean {
    if (!this.startsWith(s)) return false;
    this.pos += s.length;
    return true;
  }

  expect(s: string, expecting = JSON.stringify(s)): void {
    if (!this.eat(s)) this.fail(expecting);
  }

  /** Matches a sticky regex at the cursor and advances past it. */
  match(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  fail(expecting: string, at = this.pos): never {
    const ch = this.text.codePointAt(at);
    const unexpected = ch === undefined ? 'end of input' : JSON.stringify(String.fromCodePoint(ch));
    this.failWith(`unexpected ${unexpected} expecting ${expecting}`, at);
  }

  failWith(details: string, at = this.pos): never {
    throw PostgrestErrors.parse(this.what, this.shown, at + 1, details);
  }

  guardDepth(depth: number): void {
    if (depth > MAX_NESTING) this.failWith(`nesting deeper than ${MAX_NESTING} levels`);
  }
}
