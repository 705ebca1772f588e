// A rehearsal's look at a commit in the browser (docs/design/replay.md, "Rehearsal"): the request a press would send,
// found without sending it. A submit control in a form is read as the browser would build its submission (HTML,
// "Form submission algorithm": the submitter's formmethod/formaction over the form's, the entry list of
// `new FormData(form, submitter)`), so nothing is pressed. Anything else is pressed with every request the context
// sends from then on stopped before it leaves (Playwright routing), and the first is reported; the page is then spent.
import type { BrowserContext, ElementHandle, Request as PwRequest } from 'playwright-core';
import type { RehearsedPress } from '../../shared/surface.ts';

type Field = { name: string; value: string; secret: boolean };
type Built = { method: string; url: string; fields: Field[] };

/**
 * Runs in the page: the submission a submit button (or `input type=submit|image`) of a form would make, or null when
 * the element submits no form (a link, a scripted button) or submits a dialog. Password fields are marked secret.
 */
export function formSubmissionOf(el: Element): Built | null {
  const submit =
    (el instanceof HTMLButtonElement && el.type === 'submit') || (el instanceof HTMLInputElement && (el.type === 'submit' || el.type === 'image'));
  if (!submit) return null;
  const submitter = el as HTMLButtonElement | HTMLInputElement;
  const form = submitter.form;
  if (!form) return null;
  const method = (submitter.hasAttribute('formmethod') ? submitter.formMethod : form.method).toLowerCase();
  if (method === 'dialog') return null;
  const action = submitter.hasAttribute('formaction') ? submitter.formAction : form.action;
  const secretNames = new Set(
    [...form.elements].filter((c): c is HTMLInputElement => c instanceof HTMLInputElement && c.type === 'password').map((c) => c.name),
  );
  const fields: Field[] = [];
  for (const [name, value] of new FormData(form, submitter)) {
    fields.push({ name, value: typeof value === 'string' ? value : `(a file: ${value.name})`, secret: secretNames.has(name) });
  }
  if (method === 'get') {
    const u = new URL(action);
    u.search = new URLSearchParams(fields.map((f) => [f.name, f.value])).toString();
    return { method: 'GET', url: u.href, fields };
  }
  return { method: method.toUpperCase(), url: action, fields };
}

/** A caught request's body as fields: a form's or a JSON object's entries, else the body whole (the caller masks). */
export function fieldsOfBody(body: string | null, type: string | undefined): Field[] {
  if (!body) return [];
  if (type?.includes('application/x-www-form-urlencoded')) return [...new URLSearchParams(body)].map(([name, value]) => ({ name, value, secret: false }));
  if (type?.includes('json')) {
    try {
      const parsed: unknown = JSON.parse(body);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        return Object.entries(parsed).map(([name, value]) => ({ name, value: typeof value === 'string' ? value : JSON.stringify(value), secret: false }));
      }
    } catch {
      // Not JSON after all: shown whole below.
    }
  }
  return [{ name: '(body)', value: body, secret: false }];
}

/** How long a press is given to send its request before the rehearsal says it sent none. */
const PRESS_SENDS_MS = 2_000;

/**
 * The rehearsal of a press that is no form submission: every request the context sends from now on is caught and
 * stopped (a document answered 204 so the page stays, anything else aborted), `press` is run, and the first request
 * within PRESS_SENDS_MS is reported. `stopped` is told of each, so the write watch records it as held.
 */
export async function pressHeld(context: BrowserContext, press: () => Promise<unknown>, stopped: (req: PwRequest) => void): Promise<RehearsedPress> {
  const caught: PwRequest[] = [];
  await context.route('**/*', async (route) => {
    const req = route.request();
    caught.push(req);
    stopped(req);
    await (req.resourceType() === 'document' ? route.fulfill({ status: 204, body: '' }) : route.abort('blockedbyclient')).catch(() => undefined);
  });
  let failed: string | null = null;
  try {
    await press();
  } catch (e) {
    failed = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
  }
  const until = Date.now() + PRESS_SENDS_MS;
  while (caught.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  const first = caught[0];
  if (!first) return { derived: 'press', request: null, note: `the press sent no request within ${PRESS_SENDS_MS} ms${failed ? ` (${failed})` : ''}` };
  const request = { method: first.method(), url: first.url(), fields: fieldsOfBody(first.postData(), await first.headerValue('content-type').catch(() => null) ?? undefined) };
  const more = caught.length - 1;
  return { derived: 'press', request, ...(more > 0 ? { note: `${more} more request${more === 1 ? '' : 's'} caught and stopped after it` } : {}) };
}

/** The element's form submission, read in its page, or null (it is then pressed with every request held). */
export async function submissionOf(el: ElementHandle<Element>): Promise<Built | null> {
  return await el.evaluate(formSubmissionOf);
}
