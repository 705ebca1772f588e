// PLUMBLINE's screens, rendered the way a 1990s web front end to a mainframe rendered them:
// HTML 4.01, layout tables, a field's caption in the neighbouring cell (no <label>, no ARIA),
// PF-key buttons, uppercase wording. That is deliberate: it is the kind of page Handrail exists for.
// Every value that came from a request is escaped here, once.
import type { Branch, HoldReason, Member, Prefs, Share } from './store.ts';
import { StatementCycle } from './store.ts';
import { HoldReason as HoldReasonEnum } from './store.ts';
import { z } from 'zod';

/**
 * Drift switches, for the escalation ladder's tests: an extra banner, a reworded result line, a rewritten result page;
 * `wrong_share`, a bank whose Hold link of one share opens the next share's hold form (the wrong record, for the
 * precondition's tests: docs/design/replay.md, "The right record"); and `stray`, a member page whose script posts to
 * /audit as it loads (a fetch and a beacon: a write nobody declared).
 */
export const Drift = z.enum(['none', 'banner', 'reword', 'rewrite', 'wrong_share', 'stray']);
export type Drift = z.infer<typeof Drift>;

const STRICT = '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">';
const FRAMESET = '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Frameset//EN" "http://www.w3.org/TR/html4/frameset.dtd">';

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function doc(title: string, body: string): string {
  return `${STRICT}
<html>
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>${esc(title)}</title>
</head>
<body bgcolor="#000000" text="#33ff33" link="#ffff66" vlink="#ffff66">
<font face="Courier New, Courier, monospace">
${body}
</font>
</body>
</html>
`;
}

function heading(tx: string, title: string): string {
  return `<table width="100%" border="0" cellpadding="2" cellspacing="0">
<tr><td>${esc(tx)}</td><td align="center"><b>${esc(title)}</b></td><td align="right">PLUMBLINE FCU</td></tr>
</table>
<hr>`;
}

function errorLine(error: string | undefined): string {
  return error ? `<p><font color="#ff5555"><b>${esc(error)}</b></font></p>\n` : '';
}

export function money(cents: number): string {
  const whole = Math.floor(cents / 100).toLocaleString('en-US');
  return `${whole}.${String(cents % 100).padStart(2, '0')}`;
}

export function signonPage(branches: readonly Branch[], opts: { error?: string; banner: boolean; opid?: string }): string {
  const banner = opts.banner
    ? '<tr><td colspan="2" bgcolor="#333300"><b>*** SYSTEM NOTICE: BATCH WINDOW 22:00-02:00 ET. POSTINGS AFTER 22:00 APPLY NEXT BUSINESS DAY ***</b></td></tr>\n'
    : '';
  const options = branches.map((b) => `<option value="${esc(b.code)}">${esc(`${b.code} ${b.name}`)}</option>`).join('');
  return doc(
    'PLUMBLINE - SIGN ON',
    `<table border="0" cellpadding="4" cellspacing="0" align="center">
<tr><td colspan="2" align="center"><img src="/logo.gif" width="120" height="40" alt="PLUMBLINE"></td></tr>
<tr><td colspan="2" align="center"><b>PLUMBLINE FEDERAL CREDIT UNION - OPERATOR SIGN ON</b></td></tr>
${banner}<tr><td colspan="2">${errorLine(opts.error)}</td></tr>
</table>
<form method="post" action="/signon">
<table border="0" cellpadding="4" cellspacing="0" align="center">
<tr><td>Operator ID</td><td><input name="opid" size="8" maxlength="8" value="${esc(opts.opid ?? '')}"></td></tr>
<tr><td>Password</td><td><input type="password" name="pwd" size="12"></td></tr>
<tr><td>Branch</td><td><select name="branch">${options}</select></td></tr>
<tr><td colspan="2" align="center"><input type="submit" value="F5=Sign On"> <input type="button" value="F1=Index" disabled> <input type="button" value="F12=Help" disabled></td></tr>
</table>
</form>
<p align="center">AUTHORIZED USE ONLY. ALL TRANSACTIONS ARE LOGGED.</p>`,
  );
}

export function deskPage(): string {
  return `${FRAMESET}
<html>
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>PLUMBLINE - OPERATOR DESK</title>
</head>
<frameset cols="180,*">
<frame name="nav" src="/nav" scrolling="no">
<frame name="work" src="/inquiry">
<noframes><body>THIS TERMINAL REQUIRES A FRAMES-CAPABLE BROWSER.</body></noframes>
</frameset>
</html>
`;
}

export function navPage(opid: string, branch: string): string {
  return doc(
    'PLUMBLINE - MENU',
    `<p><b>PLUMBLINE</b><br>OPR ${esc(opid)}<br>BR ${esc(branch)}</p>
<table border="0" cellpadding="2" cellspacing="0">
<tr><td><a href="/inquiry" target="work">Member Inquiry</a></td></tr>
<tr><td><a href="/signoff" target="_top">Sign Off</a></td></tr>
</table>`,
  );
}

export function inquiryPage(opts: { error?: string; by?: string; value?: string } = {}): string {
  const sel = (v: string) => (opts.by === v ? ' selected' : '');
  return doc(
    'PLUMBLINE - MEMBER INQUIRY',
    `${heading('MBRINQ', 'MEMBER INQUIRY')}
${errorLine(opts.error)}<form method="get" action="/results">
<table border="0" cellpadding="4" cellspacing="0">
<tr><td>Search By</td><td><select name="by"><option value="number"${sel('number')}>Member Number</option><option value="name"${sel('name')}>Name</option></select></td></tr>
<tr><td>Value</td><td><input name="value" size="30" value="${esc(opts.value ?? '')}"></td></tr>
<tr><td colspan="2"><input type="submit" value="F5=Search"></td></tr>
</table>
</form>`,
  );
}

export function resultsPage(members: readonly Member[], by: string, value: string): string {
  const body =
    members.length === 0
      ? `<p>NO MATCH FOR ${by === 'name' ? 'NAME' : 'MEMBER NUMBER'} ${esc(value.toUpperCase())}</p>`
      : `<p>${members.length} MEMBER(S) FOUND</p>
<table border="1" cellpadding="3" cellspacing="0">
<tr><th>Member</th><th>Name</th><th>Branch</th></tr>
${members
  .map((m) => `<tr><td><a href="/member?m=${esc(m.number)}">${esc(m.number)}</a></td><td>${esc(m.name)}</td><td>${esc(m.branch)}</td></tr>`)
  .join('\n')}
</table>`;
  return doc('PLUMBLINE - INQUIRY RESULTS', `${heading('MBRLST', 'INQUIRY RESULTS')}\n${body}\n<p><a href="/inquiry">F3=Return</a></p>`);
}

/** What the `stray` drift's member page sends as it loads: a script's fetch POST and a beacon, both to /audit. */
function strayScript(member: string): string {
  const body = JSON.stringify(`viewed=${member}`);
  return `<script type="text/javascript">
fetch('/audit', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: ${body} }).catch(function () {});
navigator.sendBeacon('/audit', ${body});
</script>`;
}

export function memberPage(m: Member, shares: readonly Share[], statusOf: (id: string) => string, opts: { stray?: boolean } = {}): string {
  const rows = shares
    .map(
      (s) =>
        `<tr><td>${esc(s.id)}</td><td>${esc(s.type)}</td><td align="right">${money(s.balanceCents)}</td><td>${esc(statusOf(s.id))}</td><td><a href="/hold?share=${esc(encodeURIComponent(s.id))}">Hold</a></td></tr>`,
    )
    .join('\n');
  return doc(
    `PLUMBLINE - MEMBER ${m.number}`,
    `${heading('MBRDTL', 'MEMBER DETAIL')}
<table border="0" cellpadding="2" cellspacing="0">
<tr><td>Member</td><td>${esc(m.number)}</td></tr>
<tr><td>Name</td><td>${esc(m.name)}</td></tr>
<tr><td>Branch</td><td>${esc(m.branch)}</td></tr>
<tr><td>Address</td><td>${esc(m.address)}<br>${esc(m.city)}</td></tr>
</table>
<p><b>SHARES</b></p>
<table border="1" cellpadding="3" cellspacing="0">
<tr><th>Share ID</th><th>Type</th><th>Balance</th><th>Status</th><th>Action</th></tr>
${rows}
</table>
<p><a href="/inquiry">F3=Return</a></p>${opts.stray ? `\n${strayScript(m.number)}` : ''}`,
  );
}

export function holdPage(share: Share, opts: { error?: string; reason?: string; note?: string } = {}): string {
  const reasons = ['', ...HoldReasonEnum.options]
    .map((r) => `<option value="${r}"${opts.reason === r && r ? ' selected' : ''}>${r}</option>`)
    .join('');
  return doc(
    'PLUMBLINE - PLACE ACCOUNT HOLD',
    `${heading('HLDENT', 'PLACE ACCOUNT HOLD')}
${errorLine(opts.error)}<form method="post" action="/review">
<input type="hidden" name="share" value="${esc(share.id)}">
<table border="0" cellpadding="4" cellspacing="0">
<tr><td>Share ID</td><td>${esc(share.id)}</td></tr>
<tr><td>Member</td><td>${esc(share.member)}</td></tr>
<tr><td>Type</td><td>${esc(share.type)}</td></tr>
<tr><td>Reason</td><td><select name="reason">${reasons}</select></td></tr>
<tr><td>Note</td><td><input name="note" size="40" maxlength="60" value="${esc(opts.note ?? '')}"></td></tr>
<tr><td colspan="2"><input type="submit" value="F8=Review"> <a href="/member?m=${esc(share.member)}">F3=Cancel</a></td></tr>
</table>
</form>`,
  );
}

export function reviewPage(share: Share, reason: HoldReason, note: string): string {
  return doc(
    'PLUMBLINE - HOLD REVIEW',
    `${heading('HLDREV', 'HOLD REVIEW')}
<p>REVIEW THE HOLD BELOW. F10 POSTS IT TO THE SHARE.</p>
<table border="1" cellpadding="3" cellspacing="0">
<tr><td>Share ID</td><td>${esc(share.id)}</td></tr>
<tr><td>Member</td><td>${esc(share.member)}</td></tr>
<tr><td>Reason</td><td>${esc(reason)}</td></tr>
<tr><td>Note</td><td>${esc(note || '(NONE)')}</td></tr>
</table>
<form method="post" action="/post">
<input type="hidden" name="share" value="${esc(share.id)}">
<input type="hidden" name="reason" value="${esc(reason)}">
<input type="hidden" name="note" value="${esc(note)}">
<p><input type="submit" value="F10=Post Hold"> <a href="/member?m=${esc(share.member)}">F3=Cancel</a></p>
</form>`,
  );
}

export type ResultFacts =
  | { kind: 'posted'; share: Share; reason: HoldReason; confirmation: string }
  | { kind: 'already_held'; share: Share; reason: HoldReason }
  | { kind: 'refused'; share: Share; why: string };

/** The result line's text for the usual layout; `reword` changes only the posted wording. */
export function resultLine(f: ResultFacts, drift: Drift): string {
  switch (f.kind) {
    case 'posted':
      return drift === 'reword' ? `HOLD ACCEPTED REF ${f.confirmation}` : `HOLD POSTED CONFIRMATION ${f.confirmation}`;
    case 'already_held':
      return `HOLD NOT POSTED: SHARE ALREADY HELD (${f.reason})`;
    case 'refused':
      return `HOLD NOT POSTED: ${f.why}`;
  }
}

export function resultPage(f: ResultFacts, drift: Drift): string {
  if (drift === 'rewrite') return rewrittenResultPage(f);
  return doc(
    'PLUMBLINE - HOLD RESULT',
    `${heading('HLDRES', 'HOLD RESULT')}
<table border="0" cellpadding="4" cellspacing="0">
<tr><td>Share ID</td><td>${esc(f.share.id)}</td></tr>
<tr><td>Member</td><td>${esc(f.share.member)}</td></tr>
</table>
<p id="result"><b>${esc(resultLine(f, drift))}</b></p>
<p><a href="/member?m=${esc(f.share.member)}">F3=Return</a> <a href="/inquiry">F4=New Inquiry</a></p>`,
  );
}

/** The `rewrite` drift: same facts, a different screen (title, headings, structure; no id=result). */
function rewrittenResultPage(f: ResultFacts): string {
  const disposition = f.kind === 'posted' ? 'ACCEPTED' : 'REJECTED';
  const detail =
    f.kind === 'posted'
      ? `<dt>Reference Number</dt><dd><tt>${esc(f.confirmation)}</tt></dd><dt>Hold Code</dt><dd>${esc(f.reason)}</dd>`
      : f.kind === 'already_held'
        ? `<dt>Rejection</dt><dd>EXISTING HOLD ON SHARE</dd><dt>Existing Hold Code</dt><dd>${esc(f.reason)}</dd>`
        : `<dt>Rejection</dt><dd>${esc(f.why)}</dd>`;
  return doc(
    'ACCOUNT MAINTENANCE ACKNOWLEDGEMENT',
    `<h2>Account Maintenance</h2>
<h3>Transaction Acknowledgement</h3>
<dl>
<dt>Transaction</dt><dd>SHARE HOLD</dd>
<dt>Account</dt><dd>${esc(f.share.id)} (MEMBER ${esc(f.share.member)})</dd>
<dt>Disposition</dt><dd><b>${disposition}</b></dd>
${detail}
</dl>
<ul><li><a href="/member?m=${esc(f.share.member)}">Back to member</a></li><li><a href="/inquiry">Another inquiry</a></li></ul>`,
  );
}

/**
 * The notes desk: a list-style page (no frames, no sign-on) where a note is added by pressing Enter in the
 * New Note field. Its `F6=Add Note` button is, by default, inert — as on many list apps whose add is Enter only —
 * so a card that clicks it types the note and changes nothing. `addButton: 'submit'` makes it a real submit.
 */
export function notesPage(member: string, notes: readonly string[], opts: { addButton: 'inert' | 'submit' }): string {
  const items = notes.length ? notes.map((n) => `<li>${esc(n)}</li>`).join('\n') : '<li>(NO NOTES)</li>';
  const button = opts.addButton === 'submit' ? '<input type="submit" value="F6=Add Note">' : '<input type="button" value="F6=Add Note">';
  return doc(
    'PLUMBLINE - MEMBER NOTES',
    `${heading('MBRNOT', 'MEMBER NOTES')}
<p>MEMBER ${esc(member)}</p>
<ul>
${items}
</ul>
<form method="post" action="/notes">
<input type="hidden" name="m" value="${esc(member)}">
<table border="0" cellpadding="4" cellspacing="0">
<tr><td>New Note</td><td><input name="note" size="40" maxlength="60"></td><td>${button}</td></tr>
</table>
</form>`,
  );
}

/**
 * The preferences desk: four controls that each change the store without any button — a link that posts, a
 * checkbox and a select that submit when changed, and a field that submits on Enter (or when it is left). The
 * kind of page that hides writes from anyone who only asks about buttons. No sign-on, like the notes desk.
 */
export function prefsPage(member: string, prefs: Prefs, remark?: string): string {
  const m = esc(member);
  const hidden = `<input type="hidden" name="m" value="${m}">`;
  const cycles = StatementCycle.options
    .map((c) => `<option value="${c}"${c === prefs.cycle ? ' selected' : ''}>${c}</option>`)
    .join('');
  return doc(
    'PLUMBLINE - STATEMENT PREFERENCES',
    `${heading('MBRPRF', 'STATEMENT PREFERENCES')}
<p>MEMBER ${m}</p>
${remark ? `<p>REMARKS: ${esc(remark)}</p>\n` : ''}<p>PAPERLESS ${prefs.paperless ? 'YES' : 'NO'} / CYCLE ${esc(prefs.cycle)} / NICKNAME ${esc(prefs.nickname || '(NONE)')} / STATEMENTS SENT ${prefs.statementsSent}</p>
<form id="flag" method="post" action="/prefs/flag">${hidden}</form>
<p><a href="/prefs?m=${m}" onclick="document.getElementById('flag').submit(); return false;">Send Statement Now</a></p>
<table border="0" cellpadding="4" cellspacing="0">
<tr><td>Paperless</td><td><form method="post" action="/prefs/paperless">${hidden}<input type="checkbox" name="on" value="1"${prefs.paperless ? ' checked' : ''} onchange="this.form.submit()"></form></td></tr>
<tr><td>Statement Cycle</td><td><form method="post" action="/prefs/cycle">${hidden}<select name="cycle" onchange="this.form.submit()">${cycles}</select></form></td></tr>
<tr><td>Nickname</td><td><form method="post" action="/prefs/nickname">${hidden}<input name="nickname" size="20" maxlength="20" onchange="this.form.submit()"></form></td><td>PRESS ENTER TO SAVE</td></tr>
</table>
<div style="display:none"><form method="post" action="/prefs/flag">${hidden}<input type="submit" value="Post Hold"></form></div>`,
  );
}

export function errorPage(code: string, message: string): string {
  return doc(
    `PLUMBLINE - ${code}`,
    `${heading('SYSERR', 'TRANSACTION ERROR')}
<p><b>${esc(code)}: ${esc(message)}</b></p>
<p>PRESS F3 TO RETURN. <a href="/inquiry">F3=Return</a></p>`,
  );
}
