// Blanks are the only way a value reaches a card: `{{input.member_number}}`, `{{env.BASE_URL}}`.
// They may stand in target names, scopes, op values, ladder values and the entry.

export const BLANK_RE = /\{\{\s*(input|env)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
export const INPUT_NAME_RE = /^[a-z][a-z0-9_]*$/;

export interface BlankRef {
  source: 'input' | 'env';
  name: string;
}

export function blanksIn(text: string): BlankRef[] {
  const found: BlankRef[] = [];
  for (const m of text.matchAll(BLANK_RE)) {
    found.push({ source: m[1] as 'input' | 'env', name: m[2] as string });
  }
  return found;
}

export function blankFor(input: string): string {
  return `{{input.${input}}}`;
}

export class UnboundBlankError extends Error {
  override readonly name = 'UnboundBlankError';
  readonly code = 'UNBOUND_BLANK';
  constructor(readonly blank: string) {
    super(`no value for ${blank}`);
  }
}

/** Fill every blank in `text`; a blank with no value is an error, never an empty string. */
export function fillBlanks(
  text: string,
  values: { input: Readonly<Record<string, string>>; env: Readonly<Record<string, string | undefined>> },
): string {
  return text.replace(BLANK_RE, (whole, source: 'input' | 'env', name: string) => {
    const v = source === 'input' ? values.input[name] : values.env[name];
    if (v === undefined) throw new UnboundBlankError(whole);
    return v;
  });
}
