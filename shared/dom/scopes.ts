// Which containers make a scope link, written once (docs/design/walker.md, "The walker", "Scopes"): the walker links by it
// (walk.ts), the finder scopes by it (find.ts), authoring reads paths by it (shared/author/rows.ts) and the screen
// namer tells structure by it (shared/screens.ts). No imports of values: the walker bundle stays free of zod.
import type { ScopeLink } from '../schema/observation.ts';

/** Landmarks (WAI-ARIA 1.2 §5.3.4 "Landmark Roles"): a scope even unnamed, then named by their role. */
export const LANDMARK_ROLES: ReadonlySet<string> = new Set(['banner', 'navigation', 'main', 'contentinfo', 'complementary', 'search']);

/** The element roles each scope link stands for. `frame` and `row` are made otherwise (a frame, a row's key). */
export const SCOPE_LINK_ROLES: Readonly<Record<ScopeLink['role'], readonly string[]>> = {
  frame: [],
  row: [],
  group: ['group', 'radiogroup'],
  table: ['table', 'grid', 'treegrid'],
  form: ['form'],
  dialog: ['dialog', 'alertdialog'],
  region: ['region'],
  landmark: [...LANDMARK_ROLES],
};

/** The scope link an element of this role makes, if any: the inverse of SCOPE_LINK_ROLES. */
export const SCOPE_LINK_OF: Readonly<Record<string, ScopeLink['role']>> = Object.fromEntries(
  Object.entries(SCOPE_LINK_ROLES).flatMap(([link, roles]) => roles.map((r) => [r, link as ScopeLink['role']])),
);
