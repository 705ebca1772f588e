// PLUMBLINE's green screens and what each key does on them: the web bank's flow (sign on, inquiry, member, hold,
// review, post) on one shared Store. The table of screens is in docs/design/demo.md, "Demo apps".
import { money, resultLine, type ResultFacts } from '../pages.ts';
import { HoldReason, type Store } from '../store.ts';
import { AID, aidName, pfNumber, type Inbound } from './codec.ts';
import { COLS, inputAt, type Input, type Label, type Screen } from './screen.ts';

export type ScreenName = 'signon' | 'inquiry' | 'member' | 'hold' | 'review' | 'result';

/** One terminal session's place in the flow. Typed values survive an error so the operator fixes, not retypes. */
export interface Session {
  screen: ScreenName;
  opid: string;
  branch: string;
  values: Record<string, string>;
  message: string;
  alarm: boolean;
  member: string;
  share: string;
  reason: HoldReason | undefined;
  note: string;
  result: ResultFacts | undefined;
}

export function newSession(): Session {
  return {
    screen: 'signon', opid: '', branch: '', values: {}, message: '', alarm: false,
    member: '', share: '', reason: undefined, note: '', result: undefined,
  };
}

/** Reason codes, numbered the way a 3270 application lists them (the web form's select, in its order). */
const REASONS = HoldReason.options;

const TX: Record<ScreenName, [string, string]> = {
  signon: ['SIGNON', 'OPERATOR SIGN ON'],
  inquiry: ['MBRINQ', 'MEMBER INQUIRY'],
  member: ['MBRDTL', 'MEMBER DETAIL'],
  hold: ['HLDENT', 'PLACE ACCOUNT HOLD'],
  review: ['HLDREV', 'HOLD REVIEW'],
  result: ['HLDRES', 'HOLD RESULT'],
};

/** The PF keys each screen names on its bottom line; Enter does the first one's work where it says so. */
const KEYS: Record<ScreenName, string> = {
  signon: 'ENTER=Sign On  F3=Exit',
  inquiry: 'F3=Exit  F5=Search',
  member: 'ENTER=Select  F12=Cancel',
  hold: 'F8=Review  F12=Cancel',
  review: 'F10=Post Hold  F12=Cancel',
  result: 'F3=Return  F4=New Inquiry',
};

function frame(name: ScreenName, s: Session, body: Label[], inputs: Input[], cursor?: string): Screen {
  const [tx, title] = TX[name];
  const labels: Label[] = [
    { row: 1, col: 2, text: tx },
    { row: 1, col: Math.floor((COLS - title.length) / 2), text: title, bright: true },
    { row: 1, col: 67, text: 'PLUMBLINE FCU' },
    ...body,
    // The message line is always there (empty when quiet) so a screen keeps one layout whatever it says.
    { row: 23, col: 2, text: s.message, bright: true },
    { row: 24, col: 2, text: KEYS[name] },
  ];
  const withValues = inputs.map((f) => (f.hidden ? f : { ...f, value: s.values[f.name] ?? f.value ?? '' }));
  const screen: Screen = { labels, inputs: withValues, alarm: s.alarm };
  if (cursor !== undefined) screen.cursor = cursor;
  return screen;
}

/** The screen a session is on, drawn from the store as it is now. */
export function render(s: Session, store: Store): Screen {
  switch (s.screen) {
    case 'signon':
      return frame('signon', s, [
        { row: 3, col: 16, text: 'PLUMBLINE FEDERAL CREDIT UNION - OPERATOR SIGN ON' },
        { row: 6, col: 10, text: 'OPERATOR ID . .' },
        { row: 8, col: 10, text: 'PASSWORD  . . .' },
        { row: 10, col: 10, text: 'BRANCH  . . . .' },
        { row: 12, col: 10, text: `BRANCHES: ${store.branches.map((b) => `${b.code} ${b.name}`).join('  ')}` },
        { row: 20, col: 16, text: 'AUTHORIZED USE ONLY. ALL TRANSACTIONS ARE LOGGED.' },
      ], [
        { name: 'opid', row: 6, col: 27, length: 8 },
        { name: 'password', row: 8, col: 27, length: 12, hidden: true },
        { name: 'branch', row: 10, col: 27, length: 2, numeric: true, value: store.branches[0]?.code ?? '' },
      ], s.values['opid'] ? 'password' : 'opid');
    case 'inquiry':
      return frame('inquiry', s, [
        { row: 3, col: 2, text: `OPERATOR ${s.opid}  BRANCH ${s.branch}` },
        { row: 6, col: 10, text: 'MEMBER NUMBER . .' },
        { row: 8, col: 10, text: 'TYPE A 6-DIGIT MEMBER NUMBER AND PRESS F5 (OR ENTER) TO SEARCH.' },
      ], [{ name: 'member', row: 6, col: 29, length: 6, numeric: true }]);
    case 'member':
      return memberScreen(s, store);
    case 'hold': {
      const share = store.share(s.share);
      return frame('hold', s, [
        ...shareLines(s.share, store),
        { row: 7, col: 2, text: 'BALANCE' },
        { row: 7, col: 14, text: share ? money(share.balanceCents) : '' },
        { row: 9, col: 2, text: 'REASON CODE .' },
        { row: 9, col: 22, text: REASONS.map((r, i) => `${i + 1}=${r}`).join(' ') },
        { row: 11, col: 2, text: 'NOTE  . . . .' },
      ], [
        { name: 'reason', row: 9, col: 17, length: 1, numeric: true },
        { name: 'note', row: 11, col: 17, length: 60 },
      ]);
    }
    case 'review':
      return frame('review', s, [
        { row: 3, col: 2, text: 'REVIEW THE HOLD BELOW. F10 POSTS IT TO THE SHARE.' },
        ...shareLines(s.share, store).map((l) => ({ ...l, row: l.row + 2 })),
        { row: 9, col: 2, text: 'REASON' },
        { row: 9, col: 14, text: s.reason ?? '' },
        { row: 10, col: 2, text: 'NOTE' },
        { row: 10, col: 14, text: s.note || '(NONE)' },
      ], []);
    case 'result': {
      const r = s.result;
      return frame('result', s, [
        ...shareLines(s.share, store),
        { row: 8, col: 2, text: r ? resultLine(r, 'none') : '', bright: true },
      ], []);
    }
  }
}

function shareLines(id: string, store: Store): Label[] {
  const share = store.share(id);
  return [
    { row: 3, col: 2, text: 'SHARE ID' },
    { row: 3, col: 14, text: id },
    { row: 4, col: 2, text: 'MEMBER' },
    { row: 4, col: 14, text: share?.member ?? '' },
    { row: 5, col: 2, text: 'TYPE' },
    { row: 5, col: 14, text: share?.type ?? '' },
  ];
}

/** The SEL field of a share's line on the member screen: one per share, as a CICS or ISPF list has (`S` selects). */
const selName = (share: string): string => `sel ${share}`;

function memberScreen(s: Session, store: Store): Screen {
  const m = store.member(s.member);
  const shares = store.sharesOf(s.member);
  const rows: Label[] = shares.map((sh, i) => {
    const h = store.hold(sh.id);
    const line = `${sh.id.padEnd(14)} ${sh.type.padEnd(14)} ${money(sh.balanceCents).padStart(14)}   ${h ? `HELD ${h.reason}` : 'ACTIVE'}`;
    return { row: 8 + i, col: 7, text: line };
  });
  return frame('member', s, [
    { row: 3, col: 2, text: 'MEMBER' },
    { row: 3, col: 14, text: m?.number ?? '' },
    { row: 3, col: 30, text: 'BRANCH' },
    { row: 3, col: 40, text: m?.branch ?? '' },
    { row: 4, col: 2, text: 'NAME' },
    { row: 4, col: 14, text: m?.name ?? '' },
    { row: 5, col: 2, text: 'ADDRESS' },
    { row: 5, col: 14, text: m ? `${m.address}, ${m.city}` : '' },
    // The headings sit over their columns: SEL over each line's field, the rest over the text they head.
    { row: 7, col: 2, text: `SEL  ${'SHARE ID'.padEnd(14)} ${'TYPE'.padEnd(14)} ${'BALANCE'.padStart(14)}   STATUS` },
    ...rows,
    { row: 21, col: 2, text: 'TYPE S BESIDE A SHARE AND PRESS ENTER TO PLACE A HOLD ON IT.' },
  ], shares.map((sh, i) => ({ name: selName(sh.id), row: 8 + i, col: 2, length: 1 })));
}

/** What a key press does: the session's next state, or 'exit' to end the connection. */
export function press(s: Session, input: Inbound, screen: Screen, store: Store): Session | 'exit' {
  // What the screen showed, then what the terminal says was modified (read-modified sends only changed fields).
  const typed: Record<string, string> = {};
  for (const f of screen.inputs) typed[f.name] = f.value ?? '';
  for (const [address, text] of input.fields) {
    const f = inputAt(screen, address);
    if (f) typed[f.name] = text;
  }
  const next: Session = { ...s, values: typed, message: '', alarm: false };
  const error = (message: string): Session => ({ ...next, message, alarm: true });
  const go = (screen: ScreenName, change: Partial<Session> = {}): Session => ({ ...next, values: {}, ...change, screen });
  const value = (name: string): string => (typed[name] ?? '').trim();

  if (input.aid === AID.CLEAR) return { ...s, message: '', alarm: false };
  const pf = pfNumber(input.aid);
  const key = input.aid === AID.ENTER ? 'ENTER' : pf !== undefined ? `F${pf}` : aidName(input.aid);

  switch (s.screen) {
    case 'signon': {
      if (key === 'F3') return 'exit';
      if (key !== 'ENTER') return error(`${aidName(input.aid)} IS NOT ACTIVE ON THIS SCREEN`);
      const password = typed['password'] ?? '';
      // The password is never kept in the session: a failed sign-on redraws the field empty.
      delete typed['password'];
      if (!store.checkOperator(value('opid'), password)) return error('INVALID OPERATOR ID OR PASSWORD');
      const branch = value('branch');
      if (!/^\d{2}$/.test(branch) || !store.isBranch(branch)) return error('INVALID BRANCH');
      return go('inquiry', { opid: value('opid').toUpperCase(), branch });
    }
    case 'inquiry': {
      if (key === 'F3') return { ...newSession() };
      if (key !== 'ENTER' && key !== 'F5') return error(`${aidName(input.aid)} IS NOT ACTIVE ON THIS SCREEN`);
      const number = value('member');
      if (!number) return error('ENTER A SEARCH VALUE');
      if (!/^\d{6}$/.test(number)) return error('MEMBER NUMBER MUST BE 6 DIGITS');
      if (!store.member(number)) return error(`MEMBER ${number} NOT ON FILE`);
      return go('member', { member: number });
    }
    case 'member': {
      if (key === 'F12' || key === 'F3') return go('inquiry');
      if (key !== 'ENTER') return error(`${aidName(input.aid)} IS NOT ACTIVE ON THIS SCREEN`);
      const marked = store.sharesOf(s.member).filter((sh) => value(selName(sh.id)));
      const wrong = marked.find((sh) => value(selName(sh.id)).toUpperCase() !== 'S');
      if (wrong) return error(`${value(selName(wrong.id))} IS NOT A SELECTION: TYPE S BESIDE ${wrong.id}`);
      const [share, ...more] = marked;
      if (!share) return error('TYPE S BESIDE A SHARE');
      if (more.length) return error('SELECT ONE SHARE AT A TIME');
      return go('hold', { share: share.id, reason: undefined, note: '' });
    }
    case 'hold': {
      if (key === 'F12' || key === 'F3') return go('member');
      if (key !== 'ENTER' && key !== 'F8') return error(`${aidName(input.aid)} IS NOT ACTIVE ON THIS SCREEN`);
      const code = value('reason');
      if (!code) return error('REASON IS REQUIRED');
      if (!/^\d+$/.test(code)) return error('REASON CODE MUST BE NUMERIC');
      const reason = REASONS[Number(code) - 1];
      if (!reason) return error('INVALID REASON CODE');
      return go('review', { reason, note: value('note').slice(0, 60) });
    }
    case 'review': {
      if (key === 'F12' || key === 'F3') return go('hold', { values: { reason: String(REASONS.indexOf(s.reason ?? 'LEGAL') + 1), note: s.note } });
      if (key === 'ENTER') return error('PRESS F10 TO POST THE HOLD OR F12 TO CANCEL');
      if (key !== 'F10') return error(`${aidName(input.aid)} IS NOT ACTIVE ON THIS SCREEN`);
      return post(next, store);
    }
    case 'result': {
      if (key === 'F3') return go('member');
      if (key === 'F4' || key === 'ENTER') return go('inquiry');
      return error(`${aidName(input.aid)} IS NOT ACTIVE ON THIS SCREEN`);
    }
  }
}

/** F10=Post Hold: one press counted in the store whatever the outcome, exactly as the web's POST /post. */
function post(s: Session, store: Store): Session {
  const share = store.share(s.share);
  if (!share) return { ...s, message: 'SHARE NOT ON FILE', alarm: true };
  if (!s.reason) {
    store.countPress(share.id);
    return { ...s, screen: 'result', values: {}, result: { kind: 'refused', share, why: 'INVALID REASON CODE' } };
  }
  const outcome = store.postHold(share.id, s.reason, s.note, s.opid);
  const result: ResultFacts =
    outcome.kind === 'posted'
      ? { kind: 'posted', share, reason: s.reason, confirmation: outcome.confirmation }
      : outcome.kind === 'already_held'
        ? { kind: 'already_held', share, reason: outcome.reason }
        : { kind: 'refused', share, why: 'SHARE NOT ON FILE' };
  return { ...s, screen: 'result', values: {}, result };
}
