// The capability: a reviewed, typed card that plain code replays with no model in the loop.
// Zod is the single source of its types and of the JSON Schema editors validate against.
import { z } from 'zod';
import { patternProblem, quotePattern } from '../regex.ts';
import { BLANK_RE, blanksIn, INPUT_NAME_RE } from './blanks.ts';
import { MENU_PATH, menuLevels } from '../menu-path.ts';
import { outsideValues, takesValue, VERBS } from '../operations.ts';
import { SURFACES, SurfaceName } from '../surfaces.ts';
import { ScopeLink, Verb } from './observation.ts';

export const CAPABILITY_SCHEMA_ID = 'handrail.capability/v1';

const Id = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'expected a lower_snake_case identifier such as "post_hold"');

/** Effect stickers: how serious a step is. What each one means is a row of the operations table (shared/operations.ts). */
export const EffectKind = z.enum(['read', 'navigate', 'stage', 'commit']);
export type EffectKind = z.infer<typeof EffectKind>;

export const OwnerConfirmation = z.strictObject({
  owner: z.string().min(1, 'expected the name of the person who confirmed this commit'),
  at: z.string().optional(),
});

export const Effect = z.strictObject(
  {
    kind: EffectKind,
    /** Who said this button is a commit. A commit without it cannot leave draft. */
    confirmed_by: OwnerConfirmation.optional(),
  },
  {
    error: (iss) =>
      iss.input === undefined
        ? 'missing effect sticker: every step needs one of read, navigate, stage, commit'
        : undefined,
  },
);
export type Effect = z.infer<typeof Effect>;

/** A rung of the locator ladder. Cheapest first; a CSS rung only as the last and dearest. */
export const RungKind = z.enum(['role_name', 'label', 'text', 'css']);
export type RungKind = z.infer<typeof RungKind>;

export const Rung = z.strictObject({
  rung: RungKind,
  cost: z.number().int().positive(),
  /** For `text` (text to find) and `css` (selector). May contain blanks. */
  value: z.string().min(1).optional(),
});
export type Rung = z.infer<typeof Rung>;

export const FingerprintField = z.enum(['role', 'name', 'supports', 'ancestor_roles']);
export type FingerprintField = z.infer<typeof FingerprintField>;

export const FingerprintSpec = z.strictObject({
  over: z.array(FingerprintField).min(1),
  /** The hash taken when the target was recorded; absent means "not checked". */
  value: z.string().optional(),
});

export const Target = z
  .strictObject({
    role: z.string().min(1),
    /** The accessible name, exact, or a blank such as {{input.member_number}}. */
    name: z.strictObject({ eq: z.string() }).optional(),
    /** A visual label (the neighbouring cell) for controls whose accessible name is empty. */
    hint: z.string().min(1).optional(),
    supports: z.array(Verb).min(1, 'expected at least one verb this control takes'),
    scope: z.array(ScopeLink).default([]),
    ladder: z.array(Rung).min(1, 'expected at least one rung to find the control with'),
    fingerprint: FingerprintSpec,
  })
  .superRefine((t, ctx) => {
    t.ladder.forEach((r, i) => {
      const prev = t.ladder[i - 1];
      if (prev && r.cost <= prev.cost) {
        ctx.addIssue({
          code: 'custom',
          path: ['ladder', i, 'cost'],
          message: `expected rungs in ascending cost: ${r.cost} is not dearer than the rung before (${prev.cost})`,
        });
      }
      if (r.rung === 'css' && i !== t.ladder.length - 1) {
        ctx.addIssue({ code: 'custom', path: ['ladder', i], message: 'a css rung may only be the last and dearest rung' });
      }
      if ((r.rung === 'text' || r.rung === 'css') && !r.value) {
        ctx.addIssue({ code: 'custom', path: ['ladder', i, 'value'], message: `a ${r.rung} rung needs a value` });
      }
      // The name may be empty: a control with no name, found by its role where its scope makes it the only one.
      if (r.rung === 'role_name' && t.name === undefined) {
        ctx.addIssue({ code: 'custom', path: ['ladder', i], message: 'a role_name rung needs the target to have a name' });
      }
      if (r.rung === 'label' && !t.hint) {
        ctx.addIssue({ code: 'custom', path: ['ladder', i], message: 'a label rung needs the target to have a hint' });
      }
    });
  });
export type Target = z.infer<typeof Target>;

/**
 * What tells a screen that follows a commit apart from every other declared screen (docs/design/replay.md,
 * "Naming a screen"). `paths`: structural paths that must all be present; `text`: stable words (never input
 * values) that must all appear in the screen text, used only where structure cannot tell two screens apart.
 * Marks only narrow a structural match: text never names a screen on its own, because page text can be hostile.
 */
export const Marks = z.strictObject({
  paths: z.array(z.string().min(1)).default([]),
  text: z.array(z.string().min(1)).default([]),
});
export type Marks = z.infer<typeof Marks>;

export const Screen = z.strictObject({
  /** What a person calls it: "Hold Result". */
  title: z.string().min(1),
  signature: z.string().min(1),
  paths: z.array(z.string()).min(1, 'expected the structural paths the screen was recorded with'),
  /**
   * Paths that carry the record the run is about (docs/design/replay.md, "Record paths"): each a path's text up to
   * and including one non-secret input's blank, ending with it (`main>region 'Assign C-#: {{input.case_title}}`), or a
   * title whose whole name is the blank (`main>heading '{{input.case_title}}'`). A page path matches when it begins
   * with the template filled from the run's inputs. Absent: every path is furniture
   * and the screen is named exactly as before; present: `signature` is over furniture and templates together.
   */
  record_paths: z.array(z.string().min(1)).min(1).optional(),
  marks: Marks.optional(),
});
export type Screen = z.infer<typeof Screen>;

export const Op = z.strictObject({
  verb: Verb,
  /** For set_value / select: a literal, or a blank naming a declared input. */
  value: z.string().optional(),
});
export type Op = z.infer<typeof Op>;

/**
 * What a `read_rows` step may target: a table, grid or list, or a column header of a table that has no name of its
 * own (the table whose header it is; docs/design/capability.md, "Rows as outputs").
 */
export const ROWS_ROLES: readonly string[] = ['table', 'grid', 'treegrid', 'list', 'columnheader'];

export const DEFAULT_SETTLE_MS = 10_000;

/** How long an unrecognised screen must stay unchanged before the engine stops waiting for it (default 1 s). */
const QuietMs = z.number().int().positive().optional();

export const Settle = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('screen_is'), screen: Id, timeout_ms: z.number().int().positive().optional(), quiet_ms: QuietMs }),
  z.strictObject({
    kind: z.literal('screen_in'),
    screens: z.array(Id).min(1),
    timeout_ms: z.number().int().positive().optional(),
    quiet_ms: QuietMs,
  }),
]);
export type Settle = z.infer<typeof Settle>;

export const Expect = z.strictObject({ screen_in: z.array(Id).min(1) });
export type Expect = z.infer<typeof Expect>;

/** A postcondition's words: the walker's names and screen text are trimmed, so words with a space at either end never match. */
const PostText = z
  .string()
  .min(1)
  .refine((t) => t.trim() === t, { message: 'must not be blank or begin or end with a space (screen text and names are compared trimmed, so it could never match)' });

/** A postcondition control's role, as the walker reports roles. */
export const POST_ROLE = /^[a-z]+$/;

/**
 * A postcondition: what must hold on the screen after a commit for its effect to count as shown — the proof
 * a commit did something when its outcome screen looks like the screen it started on. Values may hold input
 * blanks (`{{input.note}}`). `text`: the screen text contains it; `control`: a control with this role and
 * name (and, when given, inside a scope whose names match) is on the screen; `row`: the row whose key is `key`
 * (shared/dom/rows.ts) shows `contains` in its text, so another row naming the same record cannot meet it. Text in
 * a live region (a toast, an alert) is what the app says, never the screen's text nor a row's
 * (docs/design/replay.md, "What the app says").
 */
export const Postcondition = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('text'), contains: PostText }),
  z.strictObject({
    kind: z.literal('control'),
    role: z.string().regex(POST_ROLE, 'expected a role in lower-case letters (button, link, row, …)'),
    name: PostText,
    scope: z.array(ScopeLink).optional(),
  }),
  z.strictObject({ kind: z.literal('row'), key: PostText, contains: PostText }),
]);
export type Postcondition = z.infer<typeof Postcondition>;

/**
 * A precondition: what the screen shows of the record a commit acts on, checked on the last look before the press
 * (docs/design/replay.md, "The right record"). The same two kinds as a postcondition, with input blanks: the share id
 * on the review screen (`text`), the row the commit's control sits in (`control` with its row scope). One that does
 * not hold ends the run FAILED WRONG_RECORD with nothing pressed.
 */
export const Precondition = Postcondition;
export type Precondition = Postcondition;

export const Step = z.strictObject({
  id: Id,
  intent: z.string().optional(),
  screen: Id,
  op: Op,
  target: Id,
  effect: Effect,
  settle: Settle.default({ kind: 'none' }),
  expect: Expect.optional(),
  /** Commit steps only: what must hold after the commit (checked on the success path). */
  post: z.array(Postcondition).optional(),
  /**
   * Commit steps only: what the app said (its live regions, shared/schema/observation.ts Part.said) on the screen the
   * commit landed on when the card was made, new since the press, input values as their blanks. When a replay's
   * landing says something new and none of it is this (nor a declared outcome's words), the commit is in doubt
   * (docs/design/replay.md, "What the app says"). Absent: the app said nothing new, or the card predates the rule.
   */
  said: z.array(z.string().min(1)).min(1).optional(),
  /** Commit steps only: what the screen shows of the record the commit acts on, before the press. */
  pre: z.array(Precondition).min(1).optional(),
  /**
   * Commit steps only: a reviewer's word that the commit chooses no record (it adds a new one, it signs on), in place
   * of `pre`. A commit says one or the other, never neither.
   */
  no_record: z.literal(true).optional(),
  /**
   * A reviewer's word that this step may type a secret into a field that shows it (not a password field). Without
   * it, replay refuses to type a secret anywhere the surface does not report as secret.
   */
  shows_secret: z.literal(true).optional(),
});
export type Step = z.infer<typeof Step>;

export const Input = z
  .strictObject({
    type: z.enum(['string', 'integer', 'enum']),
    description: z.string().optional(),
    secret: z.boolean().default(false),
    /** A full-match regular expression (anchors implied). */
    pattern: z.string().optional(),
    values: z.array(z.string()).min(1).optional(),
    /**
     * An enum input only: what the application is given for each of its values (docs/design/capability.md, "Value maps").
     * The caller names the business's word (`LEGAL`); a step that types or picks the input types the map's entry
     * (`1`, the code the green screen takes). Everything compared or judged (names, scopes, proofs, the judge, the
     * journal key) stays the word.
     */
    map: z.record(z.string(), z.string().min(1)).optional(),
    max_length: z.number().int().positive().default(256),
    example: z.string().optional(),
  })
  .superRefine((inp, ctx) => {
    if (inp.type === 'enum' && !inp.values) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: 'an enum input needs its values' });
    }
    if (inp.map) {
      const map = inp.map;
      const problem = (message: string): void => ctx.addIssue({ code: 'custom', path: ['map'], message });
      if (inp.type !== 'enum') problem(`only an enum input takes a value map (this one is ${inp.type}): the map says what each of its values types`);
      else if (inp.secret) problem('a secret input takes no value map: its value is never typed as anything but itself');
      else {
        const values = inp.values ?? [];
        for (const v of values) if (!Object.hasOwn(map, v)) problem(`the value "${v}" has no entry: a map says what every value types`);
        for (const k of Object.keys(map)) if (!values.includes(k)) problem(`"${k}" is not one of its values (${values.join(', ')})`);
      }
    }
    const bad = inp.pattern === undefined ? null : patternProblem(inp.pattern);
    if (bad) ctx.addIssue({ code: 'custom', path: ['pattern'], message: `${quotePattern(inp.pattern ?? '')}: ${bad}` });
    if (inp.secret && inp.example !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['example'], message: 'a secret input must not carry an example value' });
    }
  });
export type Input = z.infer<typeof Input>;

/** A single string taken by a regular expression from the text of a `read` step (`kind` may be omitted). */
export const TextOutput = z.strictObject({
  kind: z.literal('text').optional(),
  /** The read step whose text the value is extracted from. */
  from_step: Id,
  /** A regular expression; the first capture group (or the whole match) is the value. */
  regex: z.string().min(1),
  description: z.string().optional(),
});
export type TextOutput = z.infer<typeof TextOutput>;

/**
 * One column of a rows output: a table's or grid's column by its header text (exact, whitespace-normalised), or
 * `text: true`, the row's whole text (a list item's; docs/design/capability.md, "Rows as outputs").
 */
export const RowsColumn = z
  .strictObject({ header: z.string().min(1).optional(), text: z.literal(true).optional() })
  .refine((c) => (c.header === undefined) !== (c.text === undefined), 'a column names either its "header" or "text": true, not both and not neither');
export type RowsColumn = z.infer<typeof RowsColumn>;

/** Rows read by a `read_rows` step: one record per row, column name → cell text (docs/design/capability.md, "Rows as outputs"). */
export const RowsOutput = z.strictObject({
  kind: z.literal('rows'),
  /** The read_rows step whose rows these are. */
  from_step: Id,
  columns: z.record(Id, RowsColumn).refine((c) => Object.keys(c).length > 0, 'a rows output needs at least one column'),
  description: z.string().optional(),
});
export type RowsOutput = z.infer<typeof RowsOutput>;

export const Output = z.discriminatedUnion('kind', [TextOutput, RowsOutput], {
  error: (iss) =>
    iss.code === 'invalid_union' && iss.note === 'No matching discriminator'
      ? 'expected "kind": "rows" (columns read by a read_rows step) or "text" (a regex over a read step; the default when omitted)'
      : undefined,
});
export type Output = z.infer<typeof Output>;

/** A detector for how a run ended: the screen it ended on and, optionally, text that must be there. */
export const OutcomeRule = z
  .strictObject({
    screen: Id,
    /** A regular expression searched in the screen text (linear-time RE2 syntax, shared/regex.ts). */
    text: z.string().optional(),
    code: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'expected an UPPER_SNAKE code such as ALREADY_PROCESSED'),
    description: z.string().optional(),
  })
  .superRefine((rule, ctx) => {
    const bad = rule.text === undefined ? null : patternProblem(rule.text);
    if (bad) ctx.addIssue({ code: 'custom', path: ['text'], message: `${quotePattern(rule.text ?? '')}: ${bad}` });
  });
export type OutcomeRule = z.infer<typeof OutcomeRule>;

/**
 * Business outcomes, recovery and failure are three distinct keys: "already held" is an answer,
 * "session expired" is worth a retry, "bad credentials" is not — conflating them is the classic mistake.
 */
export const Outcomes = z.strictObject({
  success: z.strictObject({ screens: z.array(Id).min(1) }),
  business: z.record(Id, OutcomeRule).default({}),
  recovery: z.record(Id, OutcomeRule).default({}),
  failure: z.record(Id, OutcomeRule).default({}),
});
export type Outcomes = z.infer<typeof Outcomes>;

export const Approval = z.strictObject({
  by: z.string().min(1),
  at: z.string(),
  /** sha-256 of the card's canonical JSON without its lifecycle: edit the card and this no longer matches. */
  content_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256:<64 hex digits>'),
});
export type Approval = z.infer<typeof Approval>;

export const Lifecycle = z.strictObject({
  state: z.enum(['draft', 'verified', 'approved']),
  reliability: z
    .strictObject({ k: z.number().int().nonnegative(), n: z.number().int().positive(), at: z.string() })
    .optional(),
  approval: Approval.optional(),
  review_notes: z.array(z.string()).default([]),
});
export type Lifecycle = z.infer<typeof Lifecycle>;

// ---- judge: the expected change `handrail verify` checks (issue 10, "A judge contract that can fail") ----

/** An input blank in a judge value: `{{reason}}` or, as elsewhere in a card, `{{input.reason}}`. */
export const JUDGE_BLANK_RE = /\{\{\s*(?:input\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * A state as the judge reports it, as data: field → value. A field may be a dotted path into the judge's
 * JSON answer (`hold.reason`); a string value may hold input blanks, filled from the plate before comparing.
 */
export const JudgeState = z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean(), z.null()]));
export type JudgeState = z.infer<typeof JudgeState>;

/** What the record must say before a plate runs, and what it must say after a run that did the work. */
export const ExpectedChange = z.strictObject({
  before: JudgeState,
  after: JudgeState.refine((s) => Object.keys(s).length > 0, 'the after-state must name at least one field'),
});
export type ExpectedChange = z.infer<typeof ExpectedChange>;

/**
 * A read-only card's judge (docs/design/authoring.md, "Verifying rows"): the judge's answer holds, at `at` (a key or a
 * dotted path), the rows the record has, in the card's column names; a clean plate returns exactly those rows as
 * the rows output `output`, and the record is the same after the run as before it.
 */
export const RowsJudge = z.strictObject({ output: Id, at: z.string().min(1) });
export type RowsJudge = z.infer<typeof RowsJudge>;

export const JudgeDecl = z
  .strictObject({ change: ExpectedChange.optional(), rows: RowsJudge.optional() })
  .refine((j) => (j.change === undefined) !== (j.rows === undefined), 'a judge declares either the expected "change" or the "rows" it holds, not both and not neither');
export type JudgeDecl = z.infer<typeof JudgeDecl>;

/** Blanks of an expected change must name declared, public inputs: a judge is never handed a secret. */
export function judgeBlankProblems(change: ExpectedChange, inputs: Readonly<Record<string, { secret?: boolean | undefined }>>): { path: string[]; message: string }[] {
  const out: { path: string[]; message: string }[] = [];
  for (const side of ['before', 'after'] as const) {
    for (const [field, v] of Object.entries(change[side])) {
      if (typeof v !== 'string') continue;
      for (const m of v.matchAll(JUDGE_BLANK_RE)) {
        const name = m[1] ?? '';
        const spec = inputs[name];
        if (!spec) out.push({ path: [side, field], message: `the blank ${m[0]} names no declared input (declared: ${Object.keys(inputs).join(', ') || 'none'})` });
        else if (spec.secret) out.push({ path: [side, field], message: `the blank ${m[0]} names a secret input; a judge is only ever given public inputs` });
      }
    }
  }
  return out;
}

function checkJudge(card: Shape, ctx: Ctx): void {
  if (!card.judge) return;
  const rows = card.judge.rows;
  if (rows && card.outputs[rows.output]?.kind !== 'rows') {
    ctx.addIssue({ code: 'custom', path: ['judge', 'rows', 'output'], message: `"${rows.output}" is not a rows output of this card` });
  }
  if (!card.judge.change) return;
  for (const p of judgeBlankProblems(card.judge.change, card.inputs)) ctx.addIssue({ code: 'custom', path: ['judge', 'change', ...p.path], message: p.message });
}
// ---- end judge ----

const CapabilityShape = z.strictObject({
  $schema: z.string().optional(),
  schema: z.literal(CAPABILITY_SCHEMA_ID),
  id: Id,
  version: z.number().int().positive().default(1),
  intent: z.string().min(1, 'expected one sentence saying what the capability does'),
  /** Which surface replays it (shared/surfaces.ts); its declaration says which rungs and scopes the card may use. */
  surface: SurfaceName,
  entry: z.string().min(1),
  inputs: z.record(Id, Input).default({}),
  /** Which inputs identify the effect, for the idempotency key (see `Identity`). */
  identity: z.lazy(() => Identity).optional(),
  outputs: z.record(Id, Output).default({}),
  screens: z.record(Id, Screen),
  targets: z.record(Id, Target),
  steps: z.array(Step).min(1),
  outcomes: Outcomes,
  /** A read-only capability that can settle an in-doubt commit of this one (`--probe`). */
  probe: z.lazy(() => Probe).optional(),
  /** The expected change an independent judge checks in `handrail verify` (see the judge section below). */
  judge: JudgeDecl.optional(),
  /**
   * Side-effect detection in replay (shared/writes.ts): the app's origins (default: the entry's; blanks as in
   * the entry) and the endpoints whose non-safe requests are not writes ("POST /signon", "/beacon*"). A step that is
   * not a commit and sends a write to these origins ends the run UNSAFE_TO_RETRY. Absent: the card predates
   * detection and its writes are recorded in the evidence but not checked.
   */
  network: z
    .strictObject({
      origins: z.array(z.string().min(1).max(2_000)).max(50).optional(),
      ignore: z.array(z.string().regex(/^(?:[A-Z]+ )?\/\S*$/, 'expected "METHOD /path" or "/path" (a trailing * matches a prefix)').max(2_000)).max(200).default([]),
    })
    .optional(),
  lifecycle: Lifecycle,
});

type Shape = z.infer<typeof CapabilityShape>;
type Ctx = z.core.$RefinementCtx<Shape>;

// ── Identity of the effect (issue 11, "Never twice") ─────────────────────────────────────────────
/**
 * The inputs whose values say which effect a run has (member + share + reason for a hold): with the card's id
 * and content hash they make the idempotency key. Absent: every non-secret input. A secret never identifies.
 */
export const Identity = z.array(Id).min(1, 'expected at least one identifying input (omit the field for "every non-secret input")');

/** The identifying input names of a card, in declaration order. */
export function identityInputs(card: Pick<Shape, 'inputs' | 'identity'>): string[] {
  const all = Object.keys(card.inputs).filter((n) => !card.inputs[n]?.secret);
  return card.identity ? all.filter((n) => card.identity?.includes(n)) : all;
}

function checkIdentity(card: Shape, ctx: Ctx): void {
  const seen = new Set<string>();
  card.identity?.forEach((name, i) => {
    const path = ['identity', i];
    if (seen.has(name)) ctx.addIssue({ code: 'custom', path, message: `"${name}" is listed twice` });
    seen.add(name);
    const spec = card.inputs[name];
    if (!spec) ctx.addIssue({ code: 'custom', path, message: `no input "${name}" is declared (declared: ${Object.keys(card.inputs).join(', ') || 'none'})` });
    else if (spec.secret) ctx.addIssue({ code: 'custom', path, message: `"${name}" is a secret: a secret never identifies an effect (it would end up in the key's hash input)` });
  });
}
// ── end identity ─────────────────────────────────────────────────────────────────────────────────

/** Rungs and scopes are the surface's own: a card may use only those its surface declares (shared/surfaces.ts). */
function checkSurface(card: Shape, ctx: Ctx): void {
  const decl = SURFACES[card.surface];
  const scopes = (links: readonly { role: string; column?: string | undefined }[] | undefined, path: (string | number)[]): void =>
    links?.forEach((l, i) => {
      if (!decl.scopes.includes(l.role as never)) {
        ctx.addIssue({ code: 'custom', path: [...path, i, 'role'], message: `the ${decl.name} surface has no "${l.role}" scope (it has ${decl.scopes.join(', ')})` });
      }
      if (l.column === undefined) return;
      if (l.role === 'row' && !decl.rowColumns) {
        ctx.addIssue({ code: 'custom', path: [...path, i, 'column'], message: `the ${decl.name} surface keys a row by its first distinct column and names none: drop "column"` });
      }
      // A column is the screen's own header text: furniture, never a value the run is given.
      if (blanksIn(l.column).length) {
        ctx.addIssue({ code: 'custom', path: [...path, i, 'column'], message: 'a column is the header text on the screen; it holds no blank' });
      }
    });
  for (const [id, t] of Object.entries(card.targets)) {
    t.ladder.forEach((r, i) => {
      if (!decl.rungs.includes(r.rung)) {
        ctx.addIssue({ code: 'custom', path: ['targets', id, 'ladder', i, 'rung'], message: `the ${decl.name} surface cannot resolve a "${r.rung}" rung (it can: ${decl.rungs.join(', ')})` });
      }
    });
    scopes(t.scope, ['targets', id, 'scope']);
  }
  card.steps.forEach((s, i) => {
    s.post?.forEach((p, j) => p.kind === 'control' && scopes(p.scope, ['steps', i, 'post', j, 'scope']));
    s.pre?.forEach((p, j) => p.kind === 'control' && scopes(p.scope, ['steps', i, 'pre', j, 'scope']));
  });
}

function checkBlanks(card: Shape, ctx: Ctx): void {
  const check = (text: string | undefined, path: (string | number)[], allowEnv: boolean): void => {
    if (!text) return;
    for (const b of blanksIn(text)) {
      if (b.source === 'input' && !(b.name in card.inputs)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `the blank {{input.${b.name}}} names no declared input (declared: ${Object.keys(card.inputs).join(', ') || 'none'})`,
        });
      }
      if (b.source === 'env' && !allowEnv) {
        ctx.addIssue({ code: 'custom', path, message: `{{env.${b.name}}} may only be used in the entry` });
      }
    }
  };
  check(card.entry, ['entry'], true);
  for (const [id, t] of Object.entries(card.targets)) {
    check(t.name?.eq, ['targets', id, 'name', 'eq'], false);
    check(t.hint, ['targets', id, 'hint'], false);
    t.scope.forEach((s, i) => check(s.name, ['targets', id, 'scope', i, 'name'], false));
    t.ladder.forEach((r, i) => check(r.value, ['targets', id, 'ladder', i, 'value'], false));
  }
  card.steps.forEach((s, i) => {
    check(s.op.value, ['steps', i, 'op', 'value'], false);
    s.said?.forEach((t, j) => check(t, ['steps', i, 'said', j], false));
  });
  for (const [id, screen] of Object.entries(card.screens)) {
    screen.record_paths?.forEach((t, i) => {
      const path = ['screens', id, 'record_paths', i];
      check(t, path, false);
      const blanks = blanksIn(t);
      // Up to and including the blank, or a whole name that is the blank alone (`main>heading '{{input.title}}'`).
      if (!blanks.length || !new RegExp(`(?:${BLANK_RE.source}| '${BLANK_RE.source}')$`).test(t)) {
        ctx.addIssue({ code: 'custom', path, message: "a record path is a path up to and including an input blank: it must end with {{input.<name>}}, or be a name that is the blank alone ('{{input.<name>}}')" });
      }
      for (const b of blanks) {
        if (card.inputs[b.name]?.secret) ctx.addIssue({ code: 'custom', path, message: `{{input.${b.name}}} is a secret: a secret never names a screen (it would be compared against page text)` });
      }
    });
  }
  for (const key of ['business', 'recovery', 'failure'] as const) {
    for (const [name, rule] of Object.entries(card.outcomes[key])) check(rule.text, ['outcomes', key, name, 'text'], false);
  }
  card.steps.forEach((s, i) => {
    for (const key of ['post', 'pre'] as const) {
      s[key]?.forEach((p, j) => {
        if (p.kind === 'text') check(p.contains, ['steps', i, key, j, 'contains'], false);
        else if (p.kind === 'row') {
          check(p.key, ['steps', i, key, j, 'key'], false);
          check(p.contains, ['steps', i, key, j, 'contains'], false);
        } else {
          check(p.name, ['steps', i, key, j, 'name'], false);
          p.scope?.forEach((l, k) => check(l.name, ['steps', i, key, j, 'scope', k, 'name'], false));
        }
        // Compared against the page's text and named in the evidence when it fails: a secret never proves a commit.
        for (const b of blanksIn(proofWords(p))) {
          if (b.source === 'input' && card.inputs[b.name]?.secret) {
            const what = key === 'post' ? 'proves a commit' : 'proves a record';
            ctx.addIssue({ code: 'custom', path: ['steps', i, key, j], message: `{{input.${b.name}}} is a secret: a secret never ${what} (it would be compared against page text)` });
          }
        }
      });
    }
  });
}

/** A pre- or postcondition's words, blanks and all: what it compares with the screen. */
function proofWords(p: Postcondition): string {
  if (p.kind === 'text') return p.contains;
  if (p.kind === 'row') return `${p.key} ${p.contains}`;
  return [p.name, ...(p.scope ?? []).map((l) => l.name)].join(' ');
}

/**
 * What is wrong with how a step says which record it acts on (docs/design/replay.md, "The right record"): a commit
 * declares `pre` (the record on the screen before the press, naming at least one input) or `no_record`, exactly one;
 * any other step neither. Used by the loader and the compiler alike.
 */
export function recordProblems(s: Pick<Step, 'id' | 'effect' | 'pre' | 'no_record'>): string[] {
  if (s.effect.kind !== 'commit') {
    return s.pre || s.no_record ? [`only a commit step says which record it acts on; "${s.id}" is ${s.effect.kind}`] : [];
  }
  if (s.pre && s.no_record) return [`commit step "${s.id}" declares both a precondition and no_record: it either chooses a record or it does not`];
  if (!s.pre && !s.no_record) {
    return [
      `commit step "${s.id}" does not say which record it acts on: declare pre (what the screen shows of the record before ` +
        'the press, e.g. {"kind":"text","contains":"{{input.share_id}}"}) or "no_record": true (it chooses none: it adds one, it signs on)',
    ];
  }
  if (s.pre && !s.pre.some((p) => blanksIn(proofWords(p)).some((b) => b.source === 'input'))) {
    return [`commit step "${s.id}": a precondition proves the record the inputs name, so at least one must hold an input blank such as {{input.share_id}}`];
  }
  return [];
}

/** The screens a step may land on: its settle and expect lists. */
export function outcomeScreensOf(step: Pick<Step, 'settle' | 'expect'>): string[] {
  const out = new Set<string>(step.expect?.screen_in ?? []);
  if (step.settle.kind === 'screen_is') out.add(step.settle.screen);
  if (step.settle.kind === 'screen_in') for (const l of step.settle.screens) out.add(l);
  return [...out];
}

/** Where a commit can land: its declared screens, or — with none declared — the screen it started on. */
function landingOf(step: Pick<Step, 'settle' | 'expect' | 'screen'>): string[] {
  const declared = outcomeScreensOf(step);
  return declared.length ? declared : [step.screen];
}

/**
 * A screen the commit at `index` can land on that the steps showed already, up to its own press, and the first step
 * that ran on it — or null. Such a screen cannot show by itself that the commit did anything: the app showed it
 * without the commit's effect (a list the dialog was opened from, which a refusal may close back to), so the commit
 * must declare a postcondition (docs/design/replay.md, "Postconditions").
 */
export function landingSeenBefore(
  steps: readonly Pick<Step, 'id' | 'settle' | 'expect' | 'screen'>[],
  index: number,
  /** Screens that are a declared outcome's and no success screen (a session-expired sign-on): their rule decides, not a postcondition. */
  decided: ReadonlySet<string> = new Set(),
): { screen: string; step: string } | null {
  const step = steps[index];
  if (!step) return null;
  const lands = new Set(landingOf(step).filter((l) => !decided.has(l)));
  if (lands.has(step.screen)) return { screen: step.screen, step: step.id };
  for (const earlier of steps.slice(0, index + 1)) if (lands.has(earlier.screen)) return { screen: earlier.screen, step: earlier.id };
  return null;
}

// ── Probe (docs/design/journal.md, "Never twice") ──────────────────────────────────────────────────
/**
 * A read-only capability that answers "did the effect happen?" for an in-doubt commit: `card` is its file, relative
 * to this card's file; it must end on its business outcome `committed` (the effect exists) or `not_committed`
 * (it does not). Any other ending is inconclusive and the commit stays in doubt.
 */
export const Probe = z.strictObject({
  card: z.string().min(1),
  committed: Id,
  not_committed: Id,
});
export type Probe = z.infer<typeof Probe>;
// ── end probe ────────────────────────────────────────────────────────────────────────────────────

function checkReferences(card: Shape, ctx: Ctx): void {
  const screens = Object.keys(card.screens);
  const screen = (label: string, path: (string | number)[]): void => {
    if (!(label in card.screens)) {
      ctx.addIssue({ code: 'custom', path, message: `no screen "${label}" is declared (declared: ${screens.join(', ')})` });
    }
  };
  const stepIds = new Set<string>();
  // Screens only a declared outcome's rule decides (not success screens): a commit landing there needs no postcondition.
  const decidedScreens = new Set<string>();
  tolerant(() => {
    const success = new Set(card.outcomes.success.screens);
    for (const k of ['business', 'failure', 'recovery'] as const) {
      for (const r of Object.values(card.outcomes[k])) if (!success.has(r.screen)) decidedScreens.add(r.screen);
    }
  });
  card.steps.forEach((s, i) => tolerant(() => {
    if (stepIds.has(s.id)) ctx.addIssue({ code: 'custom', path: ['steps', i, 'id'], message: `step id "${s.id}" is used twice` });
    stepIds.add(s.id);
    screen(s.screen, ['steps', i, 'screen']);
    if (s.settle.kind === 'screen_is') screen(s.settle.screen, ['steps', i, 'settle', 'screen']);
    if (s.settle.kind === 'screen_in') s.settle.screens.forEach((l, j) => screen(l, ['steps', i, 'settle', 'screens', j]));
    s.expect?.screen_in.forEach((l, j) => screen(l, ['steps', i, 'expect', 'screen_in', j]));
    const target = card.targets[s.target];
    if (!target) {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'target'], message: `no target "${s.target}" is declared` });
    } else if (!target.supports.includes(s.op.verb)) {
      ctx.addIssue({
        code: 'custom',
        path: ['steps', i, 'op', 'verb'],
        message: `target "${s.target}" does not take "${s.op.verb}" (it supports ${target.supports.join(', ')})`,
      });
    }
    const needsValue = takesValue(s.op.verb);
    if (needsValue && s.op.value === undefined) {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'op', 'value'], message: `${s.op.verb} needs a value (a literal or a blank)` });
    }
    if (!needsValue && s.op.value !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'op', 'value'], message: `${s.op.verb} takes no value` });
    }
    // A verb with a closed set of values (press: its keys) takes a literal from that set; a blank is checked when filled.
    const closed = s.op.value !== undefined && blanksIn(s.op.value).length === 0 ? outsideValues(s.op.verb, s.op.value) : null;
    if (closed) ctx.addIssue({ code: 'custom', path: ['steps', i, 'op', 'value'], message: closed });
    // A pick in a submenu is a path of item names (shared/menu-path.ts): each level names an item.
    const levels = s.op.verb === 'choose' && s.op.value !== undefined ? menuLevels(s.op.value) : [];
    if (levels.length > 1 && levels.some((l) => l.trim() === '')) {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'op', 'value'], message: `a menu path has an item name at each level ("Export${MENU_PATH}PDF"); this one has an empty level` });
    }
    if ((VERBS[s.op.verb].sticker === 'read') !== (s.effect.kind === 'read')) {
      ctx.addIssue({
        code: 'custom',
        path: ['steps', i, 'effect', 'kind'],
        message: 'a read op must carry the read sticker, and only a read op may',
      });
    }
    if (s.post && s.effect.kind !== 'commit') {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'post'], message: `only a commit step may declare postconditions; "${s.id}" is ${s.effect.kind}` });
    }
    if (s.said && s.effect.kind !== 'commit') {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'said'], message: `only a commit step records what the app said where it landed; "${s.id}" is ${s.effect.kind}` });
    }
    recordProblems(s).forEach((message) => ctx.addIssue({ code: 'custom', path: ['steps', i, s.pre ? 'pre' : 'no_record'], message }));
    const seen = s.effect.kind === 'commit' && !s.post?.length ? landingSeenBefore(card.steps, i, decidedScreens) : null;
    if (seen) {
      const where = seen.step === s.id ? `the screen it started on (${seen.screen})` : `${seen.screen}, a screen the card showed before it (step "${seen.step}")`;
      ctx.addIssue({
        code: 'custom',
        path: ['steps', i, 'post'],
        message:
          `commit step "${s.id}" can end on ${where}, so the screen alone cannot show that it did anything; ` +
          'declare a postcondition (what must be on the screen afterwards, e.g. {"kind":"text","contains":"{{input.note}}"})',
      });
    }
    if (s.effect.kind === 'commit' && !s.effect.confirmed_by && card.lifecycle.state !== 'draft') {
      ctx.addIssue({
        code: 'custom',
        path: ['steps', i, 'effect', 'confirmed_by'],
        message: `commit step "${s.id}" was never confirmed by an owner, so the card cannot be ${card.lifecycle.state}; it must stay draft`,
      });
    }
  }));
  for (const [name, o] of Object.entries(card.outputs)) {
    // A text output reads a `read` step; a rows output a `read_rows` step (docs/design/capability.md, "Rows as outputs").
    const verb = o.kind === 'rows' ? 'read_rows' : 'read';
    const from = card.steps.find((s) => s.id === o.from_step);
    if (!from) ctx.addIssue({ code: 'custom', path: ['outputs', name, 'from_step'], message: `no step "${o.from_step}"` });
    else if (from.op.verb !== verb) {
      ctx.addIssue({ code: 'custom', path: ['outputs', name, 'from_step'], message: `step "${o.from_step}" is not a ${verb} step (it does ${from.op.verb})` });
    }
    if (o.kind === 'rows') continue;
    const bad = patternProblem(o.regex);
    if (bad) ctx.addIssue({ code: 'custom', path: ['outputs', name, 'regex'], message: `${quotePattern(o.regex)}: ${bad}` });
  }
  card.steps.forEach((s, i) => {
    const target = card.targets[s.target];
    if (s.op.verb === 'read_rows' && target && !ROWS_ROLES.includes(target.role)) {
      ctx.addIssue({
        code: 'custom',
        path: ['targets', s.target, 'role'],
        message: `step "${s.id}" reads rows, so its target must be one of ${ROWS_ROLES.join(', ')}; "${s.target}" is a ${target.role}`,
      });
    }
    if (s.op.verb === 'read_rows' && !Object.values(card.outputs).some((o) => o.kind === 'rows' && o.from_step === s.id)) {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'op', 'verb'], message: `step "${s.id}" reads rows that no output of kind "rows" returns` });
    }
  });
  card.outcomes.success.screens.forEach((l, j) => screen(l, ['outcomes', 'success', 'screens', j]));
  for (const key of ['business', 'recovery', 'failure'] as const) {
    for (const [name, rule] of Object.entries(card.outcomes[key])) screen(rule.screen, ['outcomes', key, name, 'screen']);
  }
  if (card.lifecycle.state === 'approved' && !card.lifecycle.approval) {
    ctx.addIssue({ code: 'custom', path: ['lifecycle', 'approval'], message: 'an approved card must name who approved it and the content hash' });
  }
  for (const name of Object.keys(card.inputs)) {
    if (!INPUT_NAME_RE.test(name)) {
      ctx.addIssue({ code: 'custom', path: ['inputs', name], message: 'expected a lower_snake_case input name' });
    }
  }
}

/**
 * Cross-references are checked even when some field failed its own shape, so a reviewer sees every
 * problem at once. The parts that failed are then missing or half-parsed; `tolerant` skips what cannot be read.
 */
function tolerant(check: () => void): void {
  try {
    check();
  } catch {
    // The shape error for this part is already reported.
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const Capability = CapabilityShape.superRefine(
  (card, ctx) => {
    tolerant(() => checkReferences(card, ctx));
    tolerant(() => checkBlanks(card, ctx));
    tolerant(() => checkSurface(card, ctx));
    tolerant(() => checkJudge(card, ctx));
    tolerant(() => checkIdentity(card, ctx));
  },
  {
    when: (payload) => {
      const v = payload.value;
      return (
        isRecord(v) && Array.isArray(v['steps']) && isRecord(v['targets']) && isRecord(v['screens']) &&
        isRecord(v['inputs']) && isRecord(v['outcomes']) && isRecord(v['lifecycle'])
      );
    },
  },
);
export type Capability = z.infer<typeof Capability>;
export type CapabilityInput = z.input<typeof Capability>;
