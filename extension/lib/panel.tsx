// The side panel (Preact). It reads sessions and books straight from IndexedDB and sends commands to the worker;
// it never holds the API key (only whether one is saved) and shows secrets only as their blanks.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import type { BookEdit } from '../../shared/author/book-edit.ts';
import { blankFor } from '../../shared/schema/blanks.ts';
import type { TraceLine } from '../../shared/schema/trace.ts';
import { refusalLine } from '../../shared/errors.ts';
import { Changed, CommandReply, type PanelCommand } from './messages.ts';
import { busyOf, cardIdProblem, compileBook, emptyForm, emptyPost, emptyRecord, fileStem, formOf, noteOf, postsOf, recordsOf, sessionView, startCommand, toLabel, type CompileView, type PostBySteps, type PostForm, type RecordForm, type StartForm } from './panel-state.ts';
import { DEFAULT_BASE_URL, DEFAULT_MODEL, readSettings, saveSettings, viewOf, type SettingsView } from './settings.ts';
import { BookStore, toJsonl, type SessionRecord } from './store.ts';

async function send(cmd: PanelCommand): Promise<CommandReply> {
  const raw: unknown = await browser.runtime.sendMessage(cmd);
  const r = CommandReply.safeParse(raw);
  return r.success ? r.data : { ok: false, code: 'NO_WORKER', message: 'the extension worker did not answer' };
}

/** The tab this panel drives: `?tab=<id>` when opened as a page, else the active tab of the panel's window. */
async function targetTab(): Promise<{ id: number; url: string } | null> {
  const fromQuery = Number(new URLSearchParams(location.search).get('tab'));
  const tab = Number.isInteger(fromQuery) && fromQuery > 0 ? await browser.tabs.get(fromQuery) : (await browser.tabs.query({ active: true, currentWindow: true }))[0];
  return tab?.id !== undefined ? { id: tab.id, url: tab.url ?? '' } : null;
}

/** Host access for the tab's origin: loopback is granted at install; any other site is asked for once, here. */
async function ensureAccess(url: string): Promise<boolean> {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return false;
  }
  const origins = [`${origin}/*`];
  try {
    if (await browser.permissions.contains({ origins })) return true;
    return await browser.permissions.request({ origins });
  } catch {
    // An origin the manifest cannot ask for (plain http beyond this machine): no access.
    return false;
  }
}

function download(name: string, text: string, type: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

function Settings(props: { view: SettingsView | null; onSaved: (v: SettingsView) => void }) {
  const [open, setOpen] = useState(false);
  const [key, setKey] = useState('');
  const [baseURL, setBase] = useState(props.view?.baseURL ?? DEFAULT_BASE_URL);
  const [model, setModel] = useState(props.view?.model ?? DEFAULT_MODEL);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (props.view) {
      setBase(props.view.baseURL);
      setModel(props.view.model);
    }
  }, [props.view]);
  if (!open) {
    return (
      <p>
        Model: {props.view?.hasKey ? 'API key saved' : 'no API key'} ·{' '}
        <button data-testid="settings-open" onClick={() => setOpen(true)}>
          Settings
        </button>
      </p>
    );
  }
  const save = async (): Promise<void> => {
    try {
      const v = await saveSettings({ apiKey: key, baseURL, model });
      setKey('');
      setError(null);
      setOpen(false);
      props.onSaved(v);
    } catch (e) {
      setError((e as Error).message.split('\n')[0] ?? 'invalid settings');
    }
  };
  return (
    <section data-testid="settings">
      <h2>Model settings</h2>
      <label>
        Anthropic API key {props.view?.hasKey ? '(saved; leave empty to keep it)' : ''}
        <input data-testid="settings-key" type="password" autocomplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
      </label>
      <label>
        API base URL
        <input data-testid="settings-base" type="url" value={baseURL} onInput={(e) => setBase(e.currentTarget.value)} />
      </label>
      <label>
        Model
        <input data-testid="settings-model" type="text" value={model} onInput={(e) => setModel(e.currentTarget.value)} />
      </label>
      {error && <p class="error">{error}</p>}
      <button class="primary" data-testid="settings-save" onClick={() => void save()}>
        Save
      </button>
      <button onClick={() => setOpen(false)}>Cancel</button>
    </section>
  );
}

/** The form is the panel's, not this component's: it keeps its values while a session runs (secret values excepted). */
function NewSession(props: { tab: { id: number; url: string }; onStarted: (id: string) => void; form: StartForm; setForm: (f: StartForm) => void }) {
  const { form, setForm } = props;
  const [error, setError] = useState<string | null>(null);
  const set = (patch: Partial<StartForm>): void => setForm({ ...form, ...patch });
  const setRow = (i: number, patch: Partial<StartForm['inputs'][number]>): void =>
    set({ inputs: form.inputs.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  const start = async (): Promise<void> => {
    const built = startCommand(form, props.tab.id);
    if (!built.ok) return setError(built.message);
    if (!(await ensureAccess(props.tab.url))) {
      return setError(
        props.tab.url.startsWith('http:')
          ? `Handrail records plain-http sites only on this machine (localhost, 127.0.0.1): open the site's https address and start again`
          : `Handrail needs access to ${props.tab.url} to record there: allow it when Chrome asks, then start again`,
      );
    }
    const r = await send(built.cmd);
    if (!r.ok) return setError(refusalLine(r));
    setError(null);
    setForm({ ...form, inputs: form.inputs.map((x) => ({ ...x, value: x.secret ? '' : x.value })) });
    if (r.session) props.onStarted(r.session);
  };
  return (
    <section data-testid="new-session">
      <h2>New session</h2>
      <div class="row">
        <label>
          <input type="radio" name="mode" data-testid="mode-record" checked={form.mode === 'record'} onChange={() => set({ mode: 'record' })} /> Record
          (I do the task)
        </label>
        <label>
          <input type="radio" name="mode" data-testid="mode-model" checked={form.mode === 'model'} onChange={() => set({ mode: 'model' })} /> Model
          (the model does it, I answer)
        </label>
      </div>
      <label>
        Goal
        <input data-testid="goal" type="text" value={form.goal} onInput={(e) => set({ goal: e.currentTarget.value })} />
      </label>
      <label>
        Your name (the owner who answers "is this a commit?")
        <input data-testid="owner" type="text" value={form.owner} onInput={(e) => set({ owner: e.currentTarget.value })} />
      </label>
      <h2>Inputs</h2>
      {form.inputs.map((r, i) => (
        <div class="row" key={i} data-testid="input-row">
          <input data-testid="input-name" type="text" placeholder="name" value={r.name} onInput={(e) => setRow(i, { name: e.currentTarget.value })} />
          {r.secret ? (
            <input data-testid="input-value" type="password" autocomplete="off" placeholder="value" value={r.value} onInput={(e) => setRow(i, { value: e.currentTarget.value })} />
          ) : (
            <input data-testid="input-value" type="text" autocomplete="off" placeholder="value" value={r.value} onInput={(e) => setRow(i, { value: e.currentTarget.value })} />
          )}
          <label title="secret: masked everywhere, never stored">
            <input data-testid="input-secret" type="checkbox" checked={r.secret} onChange={(e) => setRow(i, { secret: e.currentTarget.checked })} /> secret
          </label>
          <button onClick={() => set({ inputs: form.inputs.filter((_, j) => j !== i) })}>×</button>
        </div>
      ))}
      <button data-testid="input-add" onClick={() => set({ inputs: [...form.inputs, { name: '', value: '', secret: false }] })}>
        Add input
      </button>
      {error && (
        <p class="error-box" role="alert" data-testid="start-error">
          <b>Cannot start.</b> {error}
        </p>
      )}
      <p>
        <button class="primary" data-testid="start" onClick={() => void start()}>
          Start on this tab
        </button>
        <span class="note"> {props.tab.url}</span>
      </p>
    </section>
  );
}

/**
 * A book line's "Change" controls (docs/design/capability.md, "Editing a book"): remove a step, give a typed value as a
 * blank or a literal, rename a label. The worker re-seals the book and writes who changed what as a line.
 */
function LineChange(props: { s: SessionRecord; line: TraceLine; edit: (e: BookEdit) => void }) {
  const { s, line, edit } = props;
  const [value, setValue] = useState(line.kind === 'act' ? (line.value ?? '') : '');
  const [label, setLabel] = useState(line.kind === 'label' ? line.label : '');
  if (line.kind === 'lost') {
    // Not recorded: the clerk does the step again, then takes the line out (the compiler refuses the book until then).
    return (
      <button data-testid="line-remove" data-line={line.seq} onClick={() => edit({ op: 'remove', line: line.seq })}>
        Done again: remove this line
      </button>
    );
  }
  if (line.kind !== 'act' && line.kind !== 'label') return null;
  const typed = line.kind === 'act' && (line.verb === 'set_value' || line.verb === 'select');
  const blanks = s.inputs.map((i) => blankFor(i.name));
  return (
    <details class="change" data-testid="line-change" data-line={line.seq}>
      <summary>change</summary>
      {line.kind === 'act' && (
        <>
          {typed && (
            <div>
              <label>
                Value (a blank such as {blanks[0] ?? '{{input.name}}'}, or text typed as it is){' '}
                <input data-testid="value-input" type="text" list={`blanks-${line.seq}`} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
              </label>
              <datalist id={`blanks-${line.seq}`}>
                {blanks.map((b) => (
                  <option value={b} />
                ))}
              </datalist>
              <button data-testid="value-save" onClick={() => edit({ op: 'value', line: line.seq, value })}>
                Save value
              </button>
            </div>
          )}
          <button data-testid="line-remove" onClick={() => edit({ op: 'remove', line: line.seq })}>
            Remove this step
          </button>
        </>
      )}
      {line.kind === 'label' && (
        <div>
          <label>
            Label <input data-testid="relabel-input" type="text" value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
          </label>
          <button data-testid="relabel-save" onClick={() => edit({ op: 'label', line: line.seq, label: toLabel(label) })}>
            Rename
          </button>
        </div>
      )}
    </details>
  );
}

function Live(props: { s: SessionRecord; lines: TraceLine[]; owner: string }) {
  const { s, lines } = props;
  const v = sessionView(s, lines);
  const note = noteOf(s);
  const busy = busyOf(s);
  const [label, setLabel] = useState('');
  // The screen shown when the clerk began typing its label: the view can change meanwhile (a later look), and the
  // label names the screen they were looking at.
  const [labelFor, setLabelFor] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | null>(null);
  const run = async (cmd: PanelCommand): Promise<void> => {
    const r = await send(cmd);
    setError(r.ok ? null : refusalLine(r));
  };
  const edit = (e: BookEdit): void => void run({ type: 'edit', session: s.id, by: props.owner || s.owner, edit: e });
  return (
    <section data-testid="live" data-phase={v.phase}>
      <h2>
        Session · {s.mode} · <span class="state" data-testid="phase">{v.phase}</span>
      </h2>
      <p>{s.goal}</p>
      {busy && (
        <p class="busy" role="status" data-testid="busy">
          <span class="spinner" aria-hidden="true" />
          {busy}{' '}
          <button data-testid="busy-stop" onClick={() => void run({ type: 'stop', session: s.id })}>
            Stop
          </button>
        </p>
      )}
      {s.question && (
        <div class="question" data-testid="question" data-question={s.question.id}>
          <p>
            {s.mode === 'model' ? 'The model wants to press' : 'You pressed'} <b data-testid="question-control">{s.question.control}</b>
            {s.question.screen ? ` on ${s.question.screen}` : ''}. Is it a commit (changes something that matters), or does it only move (navigate) or fill in
            (stage)?
          </p>
          {(['commit', 'navigate', 'stage'] as const).map((a) => (
            <button
              data-testid={`answer-${a}`}
              onClick={() => void run({ type: 'answer', session: s.id, question: s.question?.id ?? '', answer: a, owner: props.owner || s.owner })}
            >
              {a}
            </button>
          ))}
          <button
            data-testid="answer-cancel"
            onClick={() => void run({ type: 'answer', session: s.id, question: s.question?.id ?? '', answer: 'cancel', owner: props.owner || s.owner })}
          >
            Cancel: do not press it
          </button>
          <span class="note"> answering as {props.owner || s.owner}</span>
        </div>
      )}
      <p>
        Screen: <b data-testid="screen-label">{v.showing ?? 'unlabelled'}</b>
        {v.canLabel && !v.showing && <span class="note"> — label it before you act on it, or the card will have a hole here</span>}
      </p>
      {v.canLabel && (
        <div>
          <div class="row">
            <input data-testid="label-input" type="text" placeholder="label, e.g. hold_form" value={label} onInput={(e) => {
                if (!label || !labelFor) setLabelFor(s.view?.signature ?? null);
                setLabel(e.currentTarget.value);
              }} />
            <input data-testid="title-input" type="text" placeholder="title (optional)" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
          </div>
          <button
            data-testid="label-screen"
            disabled={!s.view}
            onClick={() => {
              if (!s.view) return;
              // The label names the screen shown here (its signature), not whatever the tab shows when it arrives.
              void run({ type: 'label', session: s.id, label: toLabel(label), signature: labelFor ?? s.view.signature, ...(title.trim() ? { title: title.trim() } : {}) });
              setLabel('');
              setLabelFor(null);
              setTitle('');
            }}
          >
            Label this screen
          </button>
          <button data-testid="finish" disabled={!v.showing} onClick={() => void run({ type: 'finish', session: s.id, label: v.showing ?? '' })}>
            Finish here{v.showing ? ` (${v.showing})` : ''}
          </button>
        </div>
      )}
      {v.phase === 'paused' && (
        <div class="paused" role="status" data-testid="paused">
          <p>
            <b>Recording paused.</b> This tab is on {s.paused}, not on {(s.origins ?? []).join(' or ') || 'the site this session started on'}. Nothing you do
            here is recorded. Go back to continue, or record on this site too.
          </p>
          {s.paused?.startsWith('http') && (
            <button
              data-testid="allow-origin"
              onClick={() => {
                const origin = s.paused ?? '';
                void (async () => {
                  if (!(await ensureAccess(origin))) return setError(`Handrail needs access to ${origin} to record there`);
                  await run({ type: 'allow_origin', session: s.id, origin });
                })();
              }}
            >
              Record on {s.paused} too
            </button>
          )}
        </div>
      )}
      {s.state === 'running' && (
        <button data-testid="stop" onClick={() => void run({ type: 'stop', session: s.id })}>
          Stop
        </button>
      )}
      {note &&
        (note.kind === 'error' ? (
          <div class="error-box" role="alert" data-testid="note" data-kind="error">
            <p>
              <b>{note.title}</b> {note.text}
            </p>
            <p>{note.next}</p>
          </div>
        ) : (
          <p class="note" data-testid="note">
            {note.text}
          </p>
        ))}
      {error && (
        <div class="error-box" role="alert" data-testid="live-error">
          <b>Not done.</b> {error}
        </div>
      )}
      {s.view && (
        <>
          <h2>Menu</h2>
          <ol class="menu" data-testid="menu">
            {s.view.menu.map((m) => (
              <li>{m}</li>
            ))}
          </ol>
        </>
      )}
      <h2>Book ({lines.length} lines)</h2>
      {v.canUndo && (
        <button data-testid="undo" onClick={() => edit({ op: 'undo' })}>
          Undo last step
        </button>
      )}
      <ol class="book" data-testid="book">
        {v.rows.map((r, i) => (
          <li>
            {v.plain[i]}
            <details class="technical">
              <summary>technical form</summary>
              <code>{r}</code>
            </details>
            {v.canEdit && lines[i] && <LineChange key={`${s.id}-${lines[i].seq}-${lines[i].prev ?? ''}`} s={s} line={lines[i]} edit={edit} />}
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * The postconditions a reviewer gives for commits that cannot show their effect by their screen: per step, one or
 * more, each the text the screen shows once it worked or a control (role and name) it offers.
 */
function PostForms(props: {
  steps: string[];
  posts: Record<string, PostForm[]>;
  inputs: string[];
  problem: string | null;
  onEdit: (change: (was: Record<string, PostForm[]>) => Record<string, PostForm[]>) => void;
  onCompile: () => void;
}) {
  const set = (step: string, i: number, change: Partial<PostForm>): void =>
    props.onEdit((was) => ({ ...was, [step]: (was[step] ?? [emptyPost()]).map((f, j) => (j === i ? { ...f, ...change } : f)) }));
  const blanks = props.inputs.map((n) => `{{input.${n}}}`).join(', ');
  /** One of a postcondition's words, named for a screen reader and tied to the problem when there is one. */
  const field = (step: string, i: number, f: PostForm, key: 'text' | 'role' | 'name', label: string, placeholder?: string) => (
    <input
      data-testid={`post-${key}`}
      aria-label={label}
      aria-describedby={props.problem ? 'post-error' : undefined}
      placeholder={placeholder}
      value={f[key]}
      onInput={(e) => set(step, i, { [key]: (e.target as HTMLInputElement).value })}
    />
  );
  return (
    <div data-testid="posts">
      {props.steps.length > 0 && (
        <p>
          A commit that lands where nothing on the screen shows it worked needs a postcondition: what the screen must show once it has.
          {blanks ? ` An input's value is written as its blank: ${blanks}.` : ''}
        </p>
      )}
      {props.steps.map((step) => {
        const list = props.posts[step]?.length ? (props.posts[step] as PostForm[]) : [emptyPost()];
        return (
          <fieldset data-testid="post-form" data-step={step}>
            <legend>
              After <b>{step}</b> the screen shows
            </legend>
            {list.map((f, i) => (
              <div data-testid="post-row">
                <select
                  data-testid="post-kind"
                  aria-label={`Kind of postcondition ${i + 1} after ${step}`}
                  value={f.kind}
                  onChange={(e) => {
                    const v = (e.target as HTMLSelectElement).value;
                    set(step, i, { kind: v === 'control' ? 'control' : v === 'row' ? 'row' : 'text' });
                  }}
                >
                  <option value="text">the text</option>
                  <option value="control">a control</option>
                  <option value="row">a row</option>
                </select>{' '}
                {f.kind === 'text' ? (
                  field(step, i, f, 'text', `Text shown after ${step}`)
                ) : f.kind === 'row' ? (
                  <>
                    {field(step, i, f, 'name', `Key of the row after ${step}`, 'key, e.g. {{input.title}}')}{' '}
                    {field(step, i, f, 'text', `Words the row shows after ${step}`, 'words')}
                  </>
                ) : (
                  <>
                    {field(step, i, f, 'role', `Role of the control shown after ${step}`, 'role, e.g. row')}{' '}
                    {field(step, i, f, 'name', `Name of the control shown after ${step}`, 'name')}
                  </>
                )}{' '}
                {list.length > 1 && (
                  <button data-testid="post-remove" aria-label={`Remove postcondition ${i + 1} after ${step}`} onClick={() => props.onEdit((was) => ({ ...was, [step]: list.filter((_, j) => j !== i) }))}>
                    Remove
                  </button>
                )}
              </div>
            ))}
            <button data-testid="post-add" onClick={() => props.onEdit((was) => ({ ...was, [step]: [...list, emptyPost()] }))}>
              Add another
            </button>
          </fieldset>
        );
      })}
      {props.problem && (
        <p class="error" role="alert" id="post-error" data-testid="post-error">
          {props.problem}
        </p>
      )}
      <button data-testid="compile-with-posts" onClick={props.onCompile}>
        Compile with these
      </button>
    </div>
  );
}

/**
 * The answers to "which record does this commit act on?" (NO_RECORD_IDENTITY), as `handrail compile --pre` and
 * `--no-record` take them: the text the screen shows of the record before the press, or that it chooses none.
 */
function RecordForms(props: { steps: string[]; records: Record<string, RecordForm>; inputs: string[]; onEdit: (change: (was: Record<string, RecordForm>) => Record<string, RecordForm>) => void }) {
  const set = (step: string, change: Partial<RecordForm>): void => props.onEdit((was) => ({ ...was, [step]: { ...(was[step] ?? emptyRecord()), ...change } }));
  const blanks = props.inputs.map((n) => `{{input.${n}}}`).join(', ');
  return (
    <div data-testid="records">
      <p>
        Before a commit is pressed, the screen must show the record it acts on, so a replay never presses it on another one.
        {blanks ? ` An input's value is written as its blank: ${blanks}.` : ''}
      </p>
      {props.steps.map((step) => {
        const f = props.records[step] ?? emptyRecord();
        return (
          <fieldset data-testid="record-form" data-step={step}>
            <legend>
              Before <b>{step}</b> the screen shows the record as
            </legend>
            <input data-testid="record-text" aria-label={`Text that shows the record before ${step}`} disabled={f.none} value={f.text} onInput={(e) => set(step, { text: (e.target as HTMLInputElement).value })} />{' '}
            <label>
              <input data-testid="record-none" type="checkbox" checked={f.none} onChange={(e) => set(step, { none: (e.target as HTMLInputElement).checked })} /> it acts on no particular record (it adds one, signs on, searches)
            </label>
          </fieldset>
        );
      })}
    </div>
  );
}

function Saved(props: { store: BookStore; sessions: SessionRecord[]; onOpen: (id: string) => void; onChanged: () => void }) {
  /** The last compile: its session, what it gave, and the postconditions it was given (carried into the download). */
  const [compiled, setCompiled] = useState<{ id: string; view: CompileView; post: PostBySteps; pre: PostBySteps; noRecord: string[] } | null>(null);
  /** Answers to which record each commit acts on, by step (NO_RECORD_IDENTITY). */
  const [records, setRecords] = useState<Record<string, RecordForm>>({});
  /** The session whose Delete was pressed once: deleting asks first. */
  const [deleting, setDeleting] = useState<string | null>(null);
  /** Postconditions being filled in, by commit step (several each, as `--post` may be repeated). */
  const [posts, setPosts] = useState<Record<string, PostForm[]>>({});
  /** What is wrong with the forms; null when nothing is. */
  const [postProblem, setPostProblem] = useState<string | null>(null);
  /** Why the last download could not be made; null when nothing stopped it. */
  const [downloadProblem, setDownloadProblem] = useState<string | null>(null);
  /** The forms changed since the last compile: the download would not carry them, so it waits for a compile. */
  const [postsChanged, setPostsChanged] = useState(false);
  /** Each compile's number: a slow one that a later Compile overtook does not overwrite what the later one showed. */
  const latest = useRef(0);
  const exportBook = async (s: SessionRecord): Promise<void> => download(`${fileStem(s)}.trace.jsonl`, toJsonl(await props.store.lines(s.id)), 'application/jsonl');
  const show = (id: string, view: CompileView, post: PostBySteps, forms: Record<string, PostForm[]>, answered: { pre: PostBySteps; noRecord: string[]; forms: Record<string, RecordForm> } = { pre: {}, noRecord: [], forms: {} }): void => {
    setCompiled({ id, view, post, pre: answered.pre, noRecord: answered.noRecord });
    setRecords({ ...answered.forms, ...Object.fromEntries((view.ok ? [] : view.needsRecord).filter((step) => !answered.forms[step]).map((step) => [step, emptyRecord()])) });
    setCardId(view.ok ? view.id : '');
    // A step the compiler asks about gets a form; one given before keeps what was typed.
    const wanted = view.ok ? [] : view.needsPost;
    setPosts({ ...forms, ...Object.fromEntries(wanted.filter((step) => !forms[step]?.length).map((step) => [step, [emptyPost()]])) });
    setPostsChanged(false);
    setDownloadProblem(null);
  };
  const compileIt = async (s: SessionRecord): Promise<void> => {
    const mine = ++latest.current;
    const view = compileBook(await props.store.lines(s.id));
    if (mine !== latest.current) return;
    setPostProblem(null);
    show(s.id, view, {}, {});
  };
  /** The same book again with the postconditions filled in (as `handrail compile --post` does). */
  const compileWithPosts = async (): Promise<void> => {
    if (!compiled) return;
    // In the order the forms show: which record, then what shows after.
    const answered = recordsOf(records);
    if (!answered.ok) {
      setPostProblem(answered.problem);
      return;
    }
    const given = postsOf(posts);
    if (!given.ok) {
      setPostProblem(given.problem);
      return;
    }
    setPostProblem(null);
    const mine = ++latest.current;
    const view = compileBook(await props.store.lines(compiled.id), { post: given.post, pre: answered.pre, noRecord: answered.noRecord });
    if (mine !== latest.current) return;
    show(compiled.id, view, given.post, Object.fromEntries(Object.entries(given.post).map(([step, list]) => [step, list.map(formOf)])), { pre: answered.pre, noRecord: answered.noRecord, forms: records });
  };
  const editPosts = (change: (was: Record<string, PostForm[]>) => Record<string, PostForm[]>): void => {
    setPosts(change);
    setPostsChanged(true);
  };
  /** The capability id the reviewer may change before download; the card is compiled again under it. */
  const [cardId, setCardId] = useState('');
  const idProblem = cardIdProblem(cardId);
  const downloadCard = async (): Promise<void> => {
    if (!compiled || idProblem || postsChanged) return;
    const view = compileBook(await props.store.lines(compiled.id), { id: cardId, post: compiled.post, pre: compiled.pre, noRecord: compiled.noRecord });
    if (view.ok) download(`${view.id}.json`, view.bytes, 'application/json');
    else setDownloadProblem(`Not downloaded: under this id the card does not compile: ${view.holes.map((h) => `${h.code} — ${h.message}`).join('; ')}`);
  };
  const postSteps = compiled ? [...new Set([...Object.keys(compiled.post), ...(compiled.view.ok ? [] : compiled.view.needsPost)])] : [];
  const recordSteps = compiled ? [...new Set([...Object.keys(compiled.pre), ...compiled.noRecord, ...(compiled.view.ok ? [] : compiled.view.needsRecord)])] : [];
  const editRecords = (change: (was: Record<string, RecordForm>) => Record<string, RecordForm>): void => {
    setRecords(change);
    setPostsChanged(true);
  };
  const forms = compiled && (postSteps.length > 0 || recordSteps.length > 0) && (
    <>
      {recordSteps.length > 0 && <RecordForms steps={recordSteps} records={records} inputs={compiled.view.inputs} onEdit={editRecords} />}
      <PostForms
        steps={postSteps}
        posts={posts}
        inputs={compiled.view.inputs}
        problem={postProblem}
        onEdit={editPosts}
        onCompile={() => void compileWithPosts()}
      />
    </>
  );
  return (
    <section data-testid="saved">
      <h2>Saved traces</h2>
      <table class="saved">
        <tbody>
          {props.sessions.map((s) => (
            <tr data-testid="saved-row" data-session={s.id}>
              <td>
                {s.goal}
                <br />
                <span class="note">
                  {s.mode} · {s.state} · {s.created.slice(0, 16).replace('T', ' ')}
                </span>
              </td>
              <td>
                <button data-testid="saved-open" onClick={() => props.onOpen(s.id)}>
                  Open
                </button>
                <button data-testid="saved-export" onClick={() => void exportBook(s)}>
                  Export
                </button>
                <button data-testid="saved-compile" onClick={() => void compileIt(s)}>
                  Compile
                </button>
                {deleting === s.id ? (
                  <span role="group" aria-label="Confirm delete" data-testid="delete-confirm">
                    Delete this trace for good?{' '}
                    <button
                      data-testid="delete-yes"
                      onClick={() => {
                        setDeleting(null);
                        void props.store.deleteSession(s.id).then(props.onChanged);
                      }}
                    >
                      Yes, delete it
                    </button>
                    <button data-testid="delete-no" onClick={() => setDeleting(null)}>
                      Keep it
                    </button>
                  </span>
                ) : (
                  <button data-testid="saved-delete" disabled={s.state === 'running'} onClick={() => setDeleting(s.id)}>
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {compiled && (
        <div data-testid="compiled">
          {compiled.view.ok ? (
            <>
              <p>
                Compiled <b>{compiled.view.id}</b>: {compiled.view.steps} steps, a draft for review.
              </p>
              {Object.keys(compiled.post).length > 0 && (
                <ul data-testid="posts-given">
                  {Object.entries(compiled.post).map(([step, list]) =>
                    list.map((p) => <li>{p.kind === 'text' ? `after ${step} the screen shows the text "${p.contains}"` : p.kind === 'row' ? `after ${step} the row "${p.key}" shows "${p.contains}"` : `after ${step} the screen offers the ${p.role} "${p.name}"`}</li>),
                  )}
                </ul>
              )}
              {forms}
              <ul>
                {compiled.view.notes.map((n) => (
                  <li>{n}</li>
                ))}
              </ul>
              <label>
                Capability id{' '}
                <input data-testid="card-id" value={cardId} aria-invalid={idProblem ? 'true' : 'false'} onInput={(e) => setCardId((e.target as HTMLInputElement).value)} />
              </label>
              {idProblem && (
                <p class="error" role="alert" data-testid="card-id-error">
                  {idProblem}
                </p>
              )}
              <button data-testid="download-card" disabled={idProblem !== null || postsChanged} onClick={() => void downloadCard()}>
                Download draft card
              </button>
              {postsChanged && <p class="note">The postconditions changed: compile with them before the card is downloaded.</p>}
              {downloadProblem && (
                <p class="error" role="alert" data-testid="download-error">
                  {downloadProblem}
                </p>
              )}
            </>
          ) : (
            <>
              <p class="error">The book has holes the compiler will not paper over:</p>
              <ul class="holes" data-testid="holes">
                {compiled.view.holes.map((h) => (
                  <li>
                    line {h.line}: {h.code} — {h.message}
                  </li>
                ))}
              </ul>
              {forms}
            </>
          )}
        </div>
      )}
    </section>
  );
}

export function Panel() {
  const [store, setStore] = useState<BookStore | null>(null);
  const [tab, setTab] = useState<{ id: number; url: string } | null>(null);
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const [sessions, setSessions] = useState<SessionRecord[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [lines, setLines] = useState<TraceLine[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState<StartForm>(emptyForm);

  const refresh = useCallback(async (): Promise<void> => {
    if (!store) return;
    const all = await store.listSessions();
    setSessions(all);
    const t = await targetTab().catch(() => null);
    if (t) setTab(t);
    const pick = selected ?? all.find((s) => s.state === 'running' && s.tabId === t?.id)?.id ?? null;
    if (pick !== selected) setSelected(pick);
    setLines(pick ? await store.lines(pick) : []);
  }, [store, selected]);

  useEffect(() => {
    BookStore.open().then(setStore, (e: unknown) => setError(`cannot open the trace store: ${(e as Error).message}`));
    readSettings().then((s) => setSettings(viewOf(s)), () => undefined);
    // Wake the worker, so a session it left running is settled before the panel shows it.
    send({ type: 'ping' }).catch(() => undefined);
  }, []);

  useEffect(() => {
    refresh().catch((e: unknown) => setError((e as Error).message));
    const onMessage = (raw: unknown): void => {
      if (Changed.safeParse(raw).success) refresh().catch(() => undefined);
    };
    browser.runtime.onMessage.addListener(onMessage);
    // The worker may be stopped between events: the panel also looks on its own.
    const t = setInterval(() => {
      refresh().catch(() => undefined);
    }, 1000);
    return () => {
      browser.runtime.onMessage.removeListener(onMessage);
      clearInterval(t);
    };
  }, [refresh]);

  const current = useMemo(() => sessions.find((s) => s.id === selected) ?? null, [sessions, selected]);
  const running = current?.state === 'running';

  return (
    <div>
      <h1>Handrail</h1>
      {error && <p class="error">{error}</p>}
      <Settings view={settings} onSaved={setSettings} />
      {current && <Live s={current} lines={lines} owner={current.owner} />}
      {tab && !running && <NewSession tab={tab} onStarted={(id) => setSelected(id)} form={form} setForm={setForm} />}
      {store && <Saved store={store} sessions={sessions} onOpen={(id) => setSelected(id)} onChanged={() => void refresh()} />}
    </div>
  );
}
