// What a surface sees: one screen as controls, structural paths and a signature.
// The walker (shared/dom) produces FrameObservations inside each frame; shared/screens.ts joins them.
import { z } from 'zod';

/** The closed vocabulary of operations a surface performs on a control. */
export const Verb = z.enum(['invoke', 'set_value', 'select', 'toggle', 'read']);
export type Verb = z.infer<typeof Verb>;

/** One link of a scope chain, outermost first: the frame, a named container, a table row. */
export const ScopeLink = z.strictObject({
  role: z.enum(['frame', 'row', 'group', 'dialog', 'table', 'form', 'region']),
  name: z.string(),
});
export type ScopeLink = z.infer<typeof ScopeLink>;

/** One control as the walker sees it. `ref` is only meaningful inside the observation that made it. */
export const Control = z.strictObject({
  ref: z.string(),
  role: z.string(),
  name: z.string(),
  /** A visual label (neighbouring table cell, preceding text) used when `name` is empty. */
  hint: z.string().optional(),
  verbs: z.array(Verb).min(1),
  scope: z.array(ScopeLink),
  /** Roles of ancestors that matter for a fingerprint (row, table, form, group, dialog...). */
  ancestors: z.array(z.string()),
  value: z.string().optional(),
  /** For comboboxes / listboxes: the visible option labels. */
  options: z.array(z.string()).optional(),
  disabled: z.boolean().optional(),
});
export type Control = z.infer<typeof Control>;

export const FrameObservation = z.strictObject({
  /** Frame path from the top document, e.g. [] for top, ['work'] for the frame named work. */
  frame: z.array(z.string()),
  url: z.string(),
  title: z.string(),
  controls: z.array(Control),
  /** Structural paths of this frame (furniture only, data masked). */
  paths: z.array(z.string()),
  /** Visible text of the frame, whitespace-normalised. */
  text: z.string(),
});
export type FrameObservation = z.infer<typeof FrameObservation>;

export const Observation = z.strictObject({
  url: z.string(),
  frames: z.array(FrameObservation),
  /** Union of every frame's paths, each prefixed by its frame path; sorted, unique. */
  paths: z.array(z.string()),
  /** Hash of `paths`: two screens with the same furniture share a signature. */
  signature: z.string(),
  /** Walker version that produced this: it goes into fingerprints. */
  walker: z.string(),
});
export type Observation = z.infer<typeof Observation>;
