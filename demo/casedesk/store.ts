// CASEDESK's records: claims cases in memory, with a count of every write so a judge can tell one press from two.
// The desk is the second demo app (docs/design/demo.md, "Demo apps"): a single-page app of a different kind from
// PLUMBLINE, written the way modern front ends are, so the walker, the verbs and settling meet what clerks use.

export const PEOPLE = ['Ada Okafor', 'Bram Nieuwenhuis', 'Chidi Eze', 'Dana Kowalski', 'Eun-ji Park'] as const;

export interface Case {
  id: string;
  title: string;
  assignee: string | null;
  status: 'open' | 'closed';
}

/** What the judge reports for a case: the record and how many times each write reached it. */
export interface CaseFacts {
  case: Case;
  writes: { renames: number; assigns: number; closes: number };
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

const SEED: readonly Case[] = [
  { id: 'C-1001', title: 'Water damage, 14 Elm Street', assignee: null, status: 'open' },
  { id: 'C-1002', title: 'Windscreen chip on a delivery van', assignee: 'Ada Okafor', status: 'open' },
  { id: 'C-1003', title: 'Stolen bicycle from a locked shed', assignee: null, status: 'open' },
  { id: 'C-1004', title: 'Hail on a conservatory roof', assignee: 'Chidi Eze', status: 'closed' },
];

export const MAX_TITLE = 80;

/** How a case with nobody assigned reads on the desk (the list's meta line, the Find cases table). */
export const UNASSIGNED = 'Unassigned';

export class CaseStore {
  #cases = new Map<string, Case>();
  #writes = new Map<string, CaseFacts['writes']>();
  #next = 1005;
  /** Every add that reached the store, by title (a second press of "add" shows up here). */
  readonly added = new Map<string, number>();

  constructor() {
    this.reset();
  }

  reset(): void {
    this.#cases = new Map(SEED.map((c) => [c.id, { ...c }]));
    this.#writes = new Map(SEED.map((c) => [c.id, { renames: 0, assigns: 0, closes: 0 }]));
    this.#next = 1005;
    this.added.clear();
  }

  list(): Case[] {
    return [...this.#cases.values()].map((c) => ({ ...c }));
  }

  /**
   * The open cases of one assignee ("Unassigned": those with nobody), in case order: what the Find cases view lists
   * and what its judge holds (one rule for both).
   */
  openOf(assignee: string): Case[] {
    const who = assignee.trim();
    return this.list().filter((c) => c.status === 'open' && (c.assignee ?? UNASSIGNED) === who);
  }

  get(id: string): Case | undefined {
    const c = this.#cases.get(id);
    return c ? { ...c } : undefined;
  }

  facts(id: string): CaseFacts | undefined {
    const c = this.#cases.get(id);
    const w = this.#writes.get(id);
    return c && w ? { case: { ...c }, writes: { ...w } } : undefined;
  }

  add(rawTitle: string): Outcome<Case> {
    const title = rawTitle.trim();
    const bad = titleProblem(title);
    if (bad) return { ok: false, code: 'BAD_TITLE', message: bad };
    this.added.set(title, (this.added.get(title) ?? 0) + 1);
    if ([...this.#cases.values()].some((c) => c.status === 'open' && c.title === title)) {
      return { ok: false, code: 'DUPLICATE', message: `an open case is already called "${title}"` };
    }
    const c: Case = { id: `C-${this.#next++}`, title, assignee: null, status: 'open' };
    this.#cases.set(c.id, c);
    this.#writes.set(c.id, { renames: 0, assigns: 0, closes: 0 });
    return { ok: true, value: { ...c } };
  }

  rename(id: string, rawTitle: string): Outcome<Case> {
    const c = this.#open(id);
    if (!c.ok) return c;
    const title = rawTitle.trim();
    const bad = titleProblem(title);
    if (bad) return { ok: false, code: 'BAD_TITLE', message: bad };
    this.#count(id, 'renames');
    c.value.title = title;
    return { ok: true, value: { ...c.value } };
  }

  assign(id: string, person: string): Outcome<Case> {
    const c = this.#open(id);
    if (!c.ok) return c;
    if (!(PEOPLE as readonly string[]).includes(person)) return { ok: false, code: 'NO_SUCH_PERSON', message: `nobody called "${person}" works cases` };
    this.#count(id, 'assigns');
    c.value.assignee = person;
    return { ok: true, value: { ...c.value } };
  }

  close(id: string): Outcome<Case> {
    const c = this.#open(id);
    if (!c.ok) return c;
    this.#count(id, 'closes');
    c.value.status = 'closed';
    return { ok: true, value: { ...c.value } };
  }

  #open(id: string): Outcome<Case> {
    const c = this.#cases.get(id);
    if (!c) return { ok: false, code: 'NO_SUCH_CASE', message: `no case ${id}` };
    if (c.status === 'closed') return { ok: false, code: 'ALREADY_CLOSED', message: `case ${id} is already closed` };
    return { ok: true, value: c };
  }

  #count(id: string, what: keyof CaseFacts['writes']): void {
    const w = this.#writes.get(id);
    if (w) w[what]++;
  }
}

function titleProblem(title: string): string | null {
  if (!title) return 'a case needs a title';
  if (title.length > MAX_TITLE) return `a title is at most ${MAX_TITLE} characters`;
  return null;
}
