// CASEDESK's client: custom elements with shadow DOM and slots, a custom ARIA combobox, rows whose actions show on
// hover, add with Enter, rename by double-click, a modal confirm (the page behind it inert), icon-only buttons named
// by aria-label, and every API call behind a spinner while the server takes 0.3–3 s. Bundled by the server with
// esbuild; no framework, so what the walker meets is what the platform gives.

interface Case {
  id: string;
  title: string;
  assignee: string | null;
  status: 'open' | 'closed';
}

class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(path, {
    method,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const v = (await r.json()) as { error?: string; message?: string };
  if (!r.ok) throw new ApiError(v.error ?? 'ERROR', v.message ?? `${method} ${path} failed`);
  return v as T;
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function el<T extends Element>(root: ParentNode, selector: string): T {
  const found = root.querySelector<T>(selector);
  if (!found) throw new Error(`no ${selector}`);
  return found;
}

const BASE_CSS = `
  :host { display: block; }
  button { font: inherit; cursor: pointer; }
  input { font: inherit; }
  .spinner { width: 1em; height: 1em; border: 3px solid #ccd; border-top-color: #335; border-radius: 50%; animation: spin 0.8s linear infinite; display: inline-block; }
  .spinner[hidden] { display: none; }
  @keyframes spin { to { transform: rotate(360deg); } }
`;

/** One case in the list. Its title and meta come in through slots; its actions show on hover or focus. */
class CaseRow extends HTMLElement {
  readonly #root = this.attachShadow({ mode: 'open' });

  connectedCallback(): void {
    const open = this.dataset['status'] === 'open';
    this.#root.innerHTML = `<style>${BASE_CSS}
      .row { display: flex; gap: 0.75em; align-items: center; padding: 0.4em 0.6em; border-bottom: 1px solid #dde; }
      .title { flex: 1; }
      .meta { color: #556; font-size: 0.9em; }
      .actions { visibility: hidden; display: flex; gap: 0.25em; }
      .row:hover .actions, .row:focus-within .actions { visibility: visible; }
      .actions button { border: none; background: none; font-size: 1.1em; }
    </style>
    <div class="row">
      <span class="title"><slot name="title"></slot></span>
      <span class="meta"><slot name="meta"></slot></span>
      ${open ? `<span class="actions">
        <button type="button" data-act="rename" aria-label="Rename case">&#9998;</button>
        <button type="button" data-act="assign" aria-label="Assign case">&#128100;</button>
        <button type="button" data-act="close" aria-label="Close case">&#10005;</button>
      </span>` : ''}
    </div>`;
    this.#root.addEventListener('click', (e) => {
      const act = (e.target as HTMLElement).closest('button')?.dataset['act'];
      if (act === 'rename') this.edit();
      else if (act) this.#tell('case-action', { act });
    });
    if (open) el(this.#root, '.title').addEventListener('dblclick', () => this.edit());
  }

  #tell(type: string, detail: Record<string, string>): void {
    this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail: { id: this.dataset['id'], ...detail } }));
  }

  /** Rename in place: an input over the title; Enter saves, Escape puts the title back. */
  edit(): void {
    const title = el<HTMLElement>(this.#root, '.title');
    if (title.querySelector('input')) return;
    const current = this.querySelector('[slot="title"]')?.textContent ?? '';
    // The editor says which case it renames, as the title it covers did: the record stays on the screen until Enter.
    title.innerHTML = `<input aria-label="Case title" maxlength="80"> <span class="was"></span>`;
    el<HTMLElement>(title, '.was').textContent = `(was ${current})`;
    const input = el<HTMLInputElement>(title, 'input');
    input.value = current;
    input.focus();
    input.select();
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') this.#tell('case-rename', { title: input.value });
      if (e.key === 'Escape') title.innerHTML = '<slot name="title"></slot>';
    });
  }
}

/** A combobox the ARIA way: an input that opens a listbox of options; typing filters; a click chooses. */
class Combobox extends HTMLElement {
  readonly #root = this.attachShadow({ mode: 'open' });
  #options: string[] = [];
  #value = '';

  connectedCallback(): void {
    this.#root.innerHTML = `<style>${BASE_CSS}
      .box { position: relative; display: inline-block; }
      [role=listbox] { position: absolute; z-index: 2; margin: 0; padding: 0; list-style: none; background: white; border: 1px solid #99a; min-width: 100%; }
      [role=option] { padding: 0.3em 0.6em; cursor: pointer; }
      [role=option][aria-selected=true], [role=option]:hover { background: #e8ecff; }
    </style>
    <span class="box">
      <label id="label" for="input">${esc(this.getAttribute('label') ?? '')}</label>
      <input id="input" role="combobox" aria-expanded="false" aria-controls="list" aria-autocomplete="list" autocomplete="off">
      <ul id="list" role="listbox" aria-labelledby="label" hidden></ul>
    </span>`;
    const input = this.#input;
    input.addEventListener('click', () => this.#open(''));
    input.addEventListener('input', () => this.#open(input.value));
    input.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown') this.#open(input.value);
      if (e.key === 'Escape') this.#close();
      if (e.key === 'Enter') {
        const first = this.#root.querySelector<HTMLElement>('[role=option]');
        if (first) this.#choose(first.textContent ?? '');
      }
    });
    el(this.#root, '#list').addEventListener('click', (e) => {
      const option = (e.target as HTMLElement).closest('[role=option]');
      if (option) this.#choose(option.textContent ?? '');
    });
  }

  get #input(): HTMLInputElement {
    return el<HTMLInputElement>(this.#root, '#input');
  }

  set options(v: string[]) {
    this.#options = v;
  }

  get value(): string {
    return this.#value;
  }

  reset(): void {
    this.#value = '';
    this.#input.value = '';
    this.#close();
  }

  #open(filter: string): void {
    const list = el<HTMLUListElement>(this.#root, '#list');
    const shown = this.#options.filter((o) => o.toLowerCase().includes(filter.trim().toLowerCase()));
    list.innerHTML = shown.map((o, i) => `<li role="option" id="o${i}" aria-selected="${o === this.#value}">${esc(o)}</li>`).join('');
    list.hidden = shown.length === 0;
    this.#input.setAttribute('aria-expanded', String(!list.hidden));
  }

  #close(): void {
    el<HTMLUListElement>(this.#root, '#list').hidden = true;
    this.#input.setAttribute('aria-expanded', 'false');
  }

  #choose(option: string): void {
    this.#value = option;
    this.#input.value = option;
    this.#close();
    this.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
  }
}

/** The desk: header, sign-in dialog, the case list, the assign panel, the close confirmation and a status line. */
class DeskApp extends HTMLElement {
  readonly #root = this.attachShadow({ mode: 'open' });
  #cases: Case[] = [];
  #assigning: string | null = null;
  #closing: string | null = null;

  connectedCallback(): void {
    this.#root.innerHTML = `<style>${BASE_CSS}
      header { display: flex; gap: 1em; align-items: center; padding: 0.6em 1em; background: #223; color: white; }
      header strong { flex: 1; font-size: 1.2em; }
      main { padding: 1em; max-width: 52em; }
      ul { list-style: none; padding: 0; margin: 0.5em 0; }
      #status { padding: 0 1em; min-height: 1.4em; }
      #status.error { color: #a00; }
      dialog::backdrop { background: rgba(0, 0, 0, 0.35); }
      section { margin-bottom: 1.5em; }
    </style>
    <header>
      <strong>CaseDesk</strong>
      <span id="who"></span>
      <button type="button" id="login">Log in</button>
      <button type="button" id="logout" hidden>Log out</button>
    </header>
    <main id="main" aria-busy="false">
      <span class="spinner" role="progressbar" aria-label="Loading" id="busy" hidden></span>
      <p id="hello">Log in to see your cases.</p>
      <section id="cases" aria-label="Cases" hidden>
        <h2>Cases</h2>
        <label for="new-case">New case</label>
        <input id="new-case" maxlength="80" placeholder="Describe the claim, then press Enter">
        <ul id="list"></ul>
      </section>
      <section id="find" aria-label="Find cases" hidden>
        <h2>Find cases</h2>
        <label for="find-assignee">Assignee</label>
        <input id="find-assignee" maxlength="80" placeholder="A person, or Unassigned">
        <button type="button" id="find-go">Find open cases</button>
        <table id="found" aria-label="Open cases" hidden>
          <thead><tr><th>ID</th><th>Title</th><th>Assignee</th><th>Status</th></tr></thead>
          <tbody></tbody>
        </table>
      </section>
      <section id="assign-panel" aria-labelledby="assign-title" hidden>
        <h2 id="assign-title">Assign</h2>
        <cd-combobox id="assignee" label="Assignee"></cd-combobox>
        <button type="button" id="assign">Assign</button>
        <button type="button" id="assign-cancel">Cancel</button>
      </section>
    </main>
    <p role="status" id="status"></p>
    <dialog id="login-dialog" aria-labelledby="login-title">
      <form id="login-form">
        <h2 id="login-title">Log in</h2>
        <p><label>User name <input name="user" autocomplete="username" required></label></p>
        <p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
        <p id="login-error" role="alert"></p>
        <button type="button" id="login-cancel">Cancel</button>
        <button type="submit">Log in</button>
      </form>
    </dialog>
    <dialog id="confirm" aria-labelledby="confirm-title">
      <h2 id="confirm-title">Close this case?</h2>
      <p id="confirm-text"></p>
      <button type="button" id="confirm-cancel">Cancel</button>
      <button type="button" id="confirm-ok">Close case</button>
    </dialog>`;
    const $ = <T extends Element>(s: string): T => el<T>(this.#root, s);
    $('#login').addEventListener('click', () => $<HTMLDialogElement>('#login-dialog').showModal());
    $('#login-cancel').addEventListener('click', () => $<HTMLDialogElement>('#login-dialog').close());
    $('#login-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.#login(new FormData(e.target as HTMLFormElement));
    });
    $('#logout').addEventListener('click', () => void this.#busy(api('POST', '/api/logout')).then(() => location.reload()));
    $<HTMLInputElement>('#new-case').addEventListener('keydown', (e) => {
      if (e.key === 'Enter') void this.#add((e.target as HTMLInputElement).value);
    });
    this.#root.addEventListener('case-action', (e) => this.#act((e as CustomEvent<{ id: string; act: string }>).detail));
    this.#root.addEventListener('case-rename', (e) => void this.#rename((e as CustomEvent<{ id: string; title: string }>).detail));
    $('#find-go').addEventListener('click', () => void this.#find());
    $('#assign').addEventListener('click', () => void this.#assign());
    $('#assign-cancel').addEventListener('click', () => this.#hideAssign());
    $('#confirm-cancel').addEventListener('click', () => $<HTMLDialogElement>('#confirm').close());
    $('#confirm-ok').addEventListener('click', () => void this.#close());
    void this.#start();
  }

  #el<T extends Element>(s: string): T {
    return el<T>(this.#root, s);
  }

  /** Every call to the server shows the spinner and marks the page busy until it answers. */
  async #busy<T>(p: Promise<T>): Promise<T> {
    const main = this.#el<HTMLElement>('#main');
    const spin = this.#el<HTMLElement>('#busy');
    main.setAttribute('aria-busy', 'true');
    spin.hidden = false;
    try {
      return await p;
    } finally {
      main.setAttribute('aria-busy', 'false');
      spin.hidden = true;
    }
  }

  #say(text: string, error = false): void {
    const s = this.#el<HTMLElement>('#status');
    s.textContent = text;
    s.className = error ? 'error' : '';
  }

  async #start(): Promise<void> {
    try {
      const me = await this.#busy(api<{ user: string }>('GET', '/api/me'));
      await this.#enter(me.user);
    } catch {
      // Not logged in: the hello line says what to do.
    }
  }

  async #login(form: FormData): Promise<void> {
    try {
      const me = await this.#busy(api<{ user: string }>('POST', '/api/login', { user: form.get('user'), password: form.get('password') }));
      this.#el<HTMLDialogElement>('#login-dialog').close();
      this.#say(`Logged in as ${me.user}`);
      await this.#enter(me.user);
    } catch (e) {
      this.#el<HTMLElement>('#login-error').textContent = (e as Error).message;
    }
  }

  async #enter(user: string): Promise<void> {
    this.#el<HTMLElement>('#who').textContent = user;
    this.#el<HTMLElement>('#login').hidden = true;
    this.#el<HTMLElement>('#logout').hidden = false;
    this.#el<HTMLElement>('#hello').hidden = true;
    // Opened on /find, the desk shows its Find cases view instead of the case list.
    if (location.pathname === '/find') {
      this.#el<HTMLElement>('#find').hidden = false;
      return;
    }
    const people = await this.#busy(api<string[]>('GET', '/api/people'));
    (this.#el('#assignee') as Combobox).options = people;
    await this.#load();
  }

  /** The open cases of the assignee typed in, as a table (none: the table shows its headers only). */
  async #find(): Promise<void> {
    const who = this.#el<HTMLInputElement>('#find-assignee').value.trim();
    try {
      const found = await this.#busy(api<Case[]>('GET', `/api/cases?assignee=${encodeURIComponent(who)}`));
      this.#el('#found tbody').innerHTML = found
        .map((c) => `<tr><td>${c.id}</td><td>${esc(c.title)}</td><td>${esc(c.assignee ?? 'Unassigned')}</td><td>${c.status}</td></tr>`)
        .join('');
      this.#el<HTMLElement>('#found').hidden = false;
      this.#say(`${found.length} open case${found.length === 1 ? '' : 's'} for ${who}`);
    } catch (e) {
      this.#say(`Could not find cases: ${(e as Error).message}`, true);
    }
  }

  async #load(): Promise<void> {
    this.#cases = await this.#busy(api<Case[]>('GET', '/api/cases'));
    const section = this.#el<HTMLElement>('#cases');
    section.hidden = false;
    this.#el('#list').innerHTML = this.#cases
      .map(
        (c) => `<li><cd-case-row data-id="${c.id}" data-status="${c.status}">
          <span slot="title">${esc(c.title)}</span>
          <span slot="meta">${c.id} · ${esc(c.assignee ?? 'Unassigned')} · ${c.status}</span>
        </cd-case-row></li>`,
      )
      .join('');
  }

  async #add(title: string): Promise<void> {
    try {
      const c = await this.#busy(api<Case>('POST', '/api/cases', { title }));
      this.#el<HTMLInputElement>('#new-case').value = '';
      this.#say(`Added case ${c.id}: ${c.title}`);
      await this.#load();
    } catch (e) {
      this.#say(`Could not add the case: ${(e as Error).message}`, true);
    }
  }

  async #rename(d: { id: string; title: string }): Promise<void> {
    try {
      const c = await this.#busy(api<Case>('PATCH', `/api/cases/${d.id}`, { title: d.title }));
      this.#say(`Renamed ${c.id} to ${c.title}`);
    } catch (e) {
      this.#say(`Could not rename ${d.id}: ${(e as Error).message}`, true);
    }
    await this.#load();
  }

  #act(d: { id: string; act: string }): void {
    const c = this.#cases.find((x) => x.id === d.id);
    if (!c) return;
    if (d.act === 'assign') {
      this.#assigning = c.id;
      this.#el<HTMLElement>('#assign-title').textContent = `Assign ${c.id}: ${c.title}`;
      (this.#el('#assignee') as Combobox).reset();
      this.#el<HTMLElement>('#assign-panel').hidden = false;
    }
    if (d.act === 'close') {
      this.#closing = c.id;
      this.#el<HTMLElement>('#confirm-text').textContent = `Close case ${c.id}: ${c.title}? A closed case cannot be reopened here.`;
      this.#el<HTMLDialogElement>('#confirm').showModal();
    }
  }

  #hideAssign(): void {
    this.#assigning = null;
    this.#el<HTMLElement>('#assign-panel').hidden = true;
  }

  async #assign(): Promise<void> {
    const id = this.#assigning;
    const person = (this.#el('#assignee') as Combobox).value;
    if (!id) return;
    if (!person) return this.#say('Choose an assignee first', true);
    try {
      const c = await this.#busy(api<Case>('PATCH', `/api/cases/${id}`, { assignee: person }));
      this.#say(`Assigned ${c.id} to ${c.assignee ?? ''}`);
      this.#hideAssign();
    } catch (e) {
      this.#say(`Could not assign ${id}: ${(e as Error).message}`, true);
    }
    await this.#load();
  }

  async #close(): Promise<void> {
    const id = this.#closing;
    this.#el<HTMLDialogElement>('#confirm').close();
    if (!id) return;
    try {
      const c = await this.#busy(api<Case>('POST', `/api/cases/${id}/close`));
      this.#say(`Closed ${c.id}`);
    } catch (e) {
      this.#say(`Could not close ${id}: ${(e as Error).message}`, true);
    }
    await this.#load();
  }
}

customElements.define('cd-case-row', CaseRow);
customElements.define('cd-combobox', Combobox);
customElements.define('cd-app', DeskApp);
