// Chromium's own accessibility tree as the walker's oracle: for every control the walker offers in the top frame,
// the role and name Chromium computed for the same DOM node (CDP Accessibility.getPartialAXTree), and every
// interactive node Chromium exposes (Accessibility.getFullAXTree) that the walker does not offer.
import type { CDPSession, Page } from '@playwright/test';
import { normalize } from '../../../shared/dom/name.ts';
import { parseRef } from '../../../shared/ref.ts';
import { SCOPE_LINK_OF } from '../../../shared/dom/scopes.ts';
import type { Observation } from '../../../shared/schema/observation.ts';

/** Chromium's role values that are controls, mapped onto the walker's ARIA role names where Chromium uses its own. */
const CHROMIUM_ROLE: Readonly<Record<string, string>> = {
  button: 'button', link: 'link', textbox: 'textbox', searchbox: 'searchbox', checkbox: 'checkbox', radio: 'radio',
  combobox: 'combobox', listbox: 'listbox', slider: 'slider', spinbutton: 'spinbutton', switch: 'switch', tab: 'tab',
  menuitem: 'menuitem', menuitemcheckbox: 'menuitemcheckbox', menuitemradio: 'menuitemradio', option: 'option',
  treeitem: 'treeitem',
  // <summary>: Chromium's internal role; HTML-AAM gives it none, the walker offers it as the button it behaves as.
  DisclosureTriangle: 'button',
  // <select> without size/multiple (the popup button) and a toggle button (aria-pressed).
  PopUpButton: 'combobox', ToggleButton: 'button',
  // Date, time and colour inputs: Chromium's own roles with no ARIA equivalent; the walker offers them as the
  // textbox Playwright's getByRole calls them.
  Date: 'textbox', DateTime: 'textbox', InputTime: 'textbox', ColorWell: 'textbox',
};

export interface OracleRow {
  /** The walker's ref, when the walker offers the node. */
  ref?: string;
  walker?: { role: string; name: string };
  chromium?: { role: string; name: string };
  match: boolean;
  /**
   * The control's in-frame scope links (no frame, no row), the walker's and the ones Chromium's ancestors make by the
   * same rule (shared/dom/scopes.ts: a named group, table, form or region; a landmark, named or by its role; a dialog),
   * each `role:name`, outermost first. Only for a control both offer.
   */
  scopes?: { walker: string[]; chromium: string[] };
}

export interface OracleResult {
  rows: OracleRow[];
  matched: number;
  total: number;
  /** Rows whose scopes were compared, and those whose scope links are Chromium's. */
  scopesCompared: number;
  scopesMatched: number;
  /** Chromium nodes left out on purpose, with the reason. */
  skipped: string[];
}

interface AXValue { value?: unknown }
interface AXNode { nodeId: string; parentId?: string; ignored: boolean; role?: AXValue; name?: AXValue; backendDOMNodeId?: number }

/** Chromium's container roles that make a scope link, as shared/dom/scopes.ts SCOPE_LINK_OF spells the link. */
function linkOf(n: AXNode): string | undefined {
  if (n.ignored) return undefined;
  const role = String(n.role?.value ?? '');
  const link = SCOPE_LINK_OF[role];
  if (!link) return undefined;
  const name = normalize(String(n.name?.value ?? ''));
  if (link === 'landmark') return `landmark:${name || role}`;
  if (link === 'dialog') return `dialog:${name}`;
  return name ? `${link}:${name}` : undefined;
}

/** The scope links Chromium's ancestors of `id` make, outermost first, from a partial tree with its relatives. */
function chromiumScopes(nodes: readonly AXNode[], id: number): string[] {
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const out: string[] = [];
  let n = nodes.find((x) => x.backendDOMNodeId === id);
  for (n = n?.parentId ? byId.get(n.parentId) : undefined; n; n = n.parentId ? byId.get(n.parentId) : undefined) {
    const link = linkOf(n);
    if (link) out.unshift(link);
  }
  return out;
}

function chromiumOf(n: AXNode | undefined): { role: string; name: string } | undefined {
  if (!n || n.ignored) return undefined;
  const raw = String(n.role?.value ?? '');
  return { role: CHROMIUM_ROLE[raw] ?? raw, name: normalize(String(n.name?.value ?? '')) };
}

async function backendIdOf(cdp: CDPSession, local: string): Promise<number | undefined> {
  const { result } = await cdp.send('Runtime.evaluate', {
    expression: `globalThis.__handrail && globalThis.__handrail.element(${JSON.stringify(local)})`,
  });
  if (!result.objectId) return undefined;
  const { node } = await cdp.send('DOM.describeNode', { objectId: result.objectId });
  await cdp.send('Runtime.releaseObject', { objectId: result.objectId });
  return node.backendNodeId;
}

/**
 * Why the walker leaves a node Chromium exposes out on purpose, or '' (then it is a miss). Decided here from the
 * DOM alone, not by asking the walker.
 */
const LEFT_OUT = `function () {
  if (this.closest && this.closest('select, datalist')) return "a native <select>'s option: the select's options";
  const root = this.getRootNode && this.getRootNode();
  if (root && root.host && ['INPUT', 'SELECT', 'TEXTAREA', 'VIDEO', 'AUDIO'].includes(root.host.tagName)) {
    return "part of a native control's own UI (a date field's month): the control is offered";
  }
  const modal = [...document.querySelectorAll('[aria-modal="true"]')].find((d) => d.checkVisibility());
  if (modal && !modal.contains(this)) return 'behind an aria-modal dialog: Chromium keeps it, a click cannot land';
  return '';
}`;

async function leftOutBecause(cdp: CDPSession, backendNodeId: number): Promise<string> {
  const { object } = await cdp.send('DOM.resolveNode', { backendNodeId });
  if (!object.objectId) return '';
  const { result } = await cdp.send('Runtime.callFunctionOn', { objectId: object.objectId, functionDeclaration: LEFT_OUT, returnByValue: true });
  await cdp.send('Runtime.releaseObject', { objectId: object.objectId });
  return String(result.value ?? '');
}

/** Compares the top frame of `obs` (taken from `page` just before) with Chromium's computed tree. */
export async function compareWithChromium(page: Page, obs: Observation): Promise<OracleResult> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('DOM.enable');
    await cdp.send('Accessibility.enable');
    await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
    const rows: OracleRow[] = [];
    const skipped: string[] = [];
    const offered = new Set<number>();
    const top = obs.parts.find((p) => p.part.length === 0);
    for (const c of top?.controls ?? []) {
      const local = parseRef(c.ref)?.local ?? c.ref;
      const id = await backendIdOf(cdp, local);
      let chromium: OracleRow['chromium'];
      let scopes: OracleRow['scopes'];
      if (id !== undefined) {
        offered.add(id);
        // With its relatives: the node's ancestors come along, and so its scopes.
        const { nodes } = (await cdp.send('Accessibility.getPartialAXTree', { backendNodeId: id, fetchRelatives: true })) as { nodes: AXNode[] };
        chromium = chromiumOf(nodes.find((n) => n.backendDOMNodeId === id));
        if (chromium) {
          const walker = c.scope.filter((l) => l.role !== 'frame' && l.role !== 'row').map((l) => `${l.role}:${l.name}`);
          scopes = { walker, chromium: chromiumScopes(nodes, id) };
        }
      }
      const walker = { role: c.role, name: c.name };
      rows.push({ ref: c.ref, walker, ...(chromium ? { chromium } : {}), ...(scopes ? { scopes } : {}), match: !!chromium && chromium.role === walker.role && chromium.name === walker.name });
    }
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: AXNode[] };
    for (const n of nodes) {
      const chromium = chromiumOf(n);
      if (!chromium || n.backendDOMNodeId === undefined || offered.has(n.backendDOMNodeId)) continue;
      if (!Object.values(CHROMIUM_ROLE).includes(chromium.role)) continue;
      const why = await leftOutBecause(cdp, n.backendDOMNodeId);
      if (why) {
        skipped.push(`${chromium.role} '${chromium.name}': ${why}`);
        continue;
      }
      rows.push({ chromium, match: false });
    }
    const matched = rows.filter((r) => r.match).length;
    const compared = rows.filter((r) => r.scopes);
    const scopesMatched = compared.filter((r) => sameScopes(r.scopes)).length;
    return { rows, matched, total: rows.length, scopesCompared: compared.length, scopesMatched, skipped };
  } finally {
    await cdp.detach();
  }
}

function sameScopes(s: OracleRow['scopes']): boolean {
  return !s || s.walker.join(' > ') === s.chromium.join(' > ');
}

/** One line per row whose scope links are not Chromium's. */
export function describeScopeMismatches(r: OracleResult): string[] {
  return r.rows
    .filter((row) => !sameScopes(row.scopes))
    .map((row) => `${row.ref ?? '-'} ${row.walker?.role} '${row.walker?.name}': walker scopes [${row.scopes?.walker.join(' > ')}] / Chromium [${row.scopes?.chromium.join(' > ')}]`);
}

/** One line per row that does not match, for a failure message or a report. */
export function describeMismatches(r: OracleResult): string[] {
  return r.rows
    .filter((row) => !row.match)
    .map((row) => {
      const w = row.walker ? `${row.walker.role} '${row.walker.name}'` : '(not offered)';
      const c = row.chromium ? `${row.chromium.role} '${row.chromium.name}'` : '(not in Chromium\'s tree)';
      return `${row.ref ?? '-'}: walker ${w} / Chromium ${c}`;
    });
}
