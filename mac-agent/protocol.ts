// The mac helper protocol (docs/design/mac.md, "The mac surface"): JSON lines over stdio between Node and one
// long-lived helper process — the Swift helper on a Mac (mac-agent/helper/), the recorded-tree fake elsewhere
// (mac-agent/fake/). One line per message: a request carries an `id`, its response the same `id`, and an event
// carries none. Every message is parsed with these schemas on both sides, so the fake cannot drift from the
// contract the real helper answers.
import { z } from 'zod';

/** Bumped on any change a peer of the other version could misread; `hello` refuses a mismatch. */
export const PROTOCOL_VERSION = 1;

/** A helper-side element ref: meaningful until the element is destroyed, then answered `stale_ref`. */
export const AxRef = z.string().regex(/^ax\d+$/);

/** One AX element as a snapshot reports it (attribute names as Apple's AXAttributeConstants.h spells them). */
export interface AxNode {
  ref: string;
  role: string;
  subrole?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
  /** AXValue as text (a checkbox's 0/1, a text field's contents); absent when the element has none. */
  value?: string | undefined;
  identifier?: string | undefined;
  placeholder?: string | undefined;
  roleDescription?: string | undefined;
  /** AXTitleUIElement: the static text that labels this element (an unnamed text field's "Save As:"). */
  titleElement?: string | undefined;
  /** AXDocument of a window: the file it shows, once saved. */
  document?: string | undefined;
  enabled: boolean;
  focused: boolean;
  /** Attributes AXUIElementIsAttributeSettable says yes to. */
  settable: string[];
  /** AXUIElementCopyActionNames. */
  actions: string[];
  children: AxNode[];
}

export const AxNode: z.ZodType<AxNode> = z.lazy(() =>
  z.strictObject({
    ref: AxRef,
    role: z.string().min(1),
    subrole: z.string().optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    value: z.string().optional(),
    identifier: z.string().optional(),
    placeholder: z.string().optional(),
    roleDescription: z.string().optional(),
    titleElement: AxRef.optional(),
    document: z.string().optional(),
    enabled: z.boolean(),
    focused: z.boolean(),
    settable: z.array(z.string()),
    actions: z.array(z.string()),
    children: z.array(AxNode),
  }),
);

/** What a snapshot covers: the whole app (menu bar and windows), its focused window, or one element's subtree. */
export const SnapshotScope = z.union([z.enum(['app', 'focused_window']), z.strictObject({ ref: AxRef })]);
export type SnapshotScope = z.infer<typeof SnapshotScope>;

/** The notifications `observe` subscribes to (AXNotificationConstants.h). */
export const AxNotification = z.enum(['AXSheetCreated', 'AXValueChanged', 'AXUIElementDestroyed', 'AXFocusedUIElementChanged', 'AXWindowCreated', 'AXTitleChanged']);
export type AxNotification = z.infer<typeof AxNotification>;

const envelope = { v: z.literal(PROTOCOL_VERSION), id: z.number().int().nonnegative() };

/** Every request, by method. `fake.*` methods are the fake's own (the Swift helper answers them `unknown_method`). */
export const Request = z.discriminatedUnion('method', [
  z.strictObject({ ...envelope, method: z.literal('hello'), params: z.strictObject({ version: z.number().int(), client: z.string() }) }),
  z.strictObject({ ...envelope, method: z.literal('open'), params: z.strictObject({ bundleId: z.string().min(1) }) }),
  z.strictObject({
    ...envelope,
    method: z.literal('snapshot'),
    params: z.strictObject({ pid: z.number().int().positive(), scope: SnapshotScope, maxDepth: z.number().int().min(1).max(64) }),
  }),
  z.strictObject({ ...envelope, method: z.literal('perform'), params: z.strictObject({ ref: AxRef, action: z.string().min(1) }) }),
  z.strictObject({
    ...envelope,
    method: z.literal('set'),
    params: z.strictObject({ ref: AxRef, attr: z.string().min(1), value: z.union([z.string(), z.boolean()]) }),
  }),
  z.strictObject({ ...envelope, method: z.literal('observe'), params: z.strictObject({ pid: z.number().int().positive(), notifications: z.array(AxNotification).min(1) }) }),
  z.strictObject({ ...envelope, method: z.literal('permissions'), params: z.strictObject({}) }),
  z.strictObject({ ...envelope, method: z.literal('tap.start'), params: z.strictObject({}) }),
  z.strictObject({ ...envelope, method: z.literal('tap.stop'), params: z.strictObject({}) }),
  // The fake's own: what its file system model holds, and a human's key press or click injected from outside.
  z.strictObject({ ...envelope, method: z.literal('fake.files'), params: z.strictObject({}) }),
  z.strictObject({ ...envelope, method: z.literal('fake.human'), params: z.strictObject({ kind: z.enum(['key', 'mouse']) }) }),
]);
export type Request = z.infer<typeof Request>;
export type Method = Request['method'];
export type ParamsOf<M extends Method> = Extract<Request, { method: M }>['params'];

export const SavedFile = z.strictObject({ path: z.string(), text: z.string() });
export type SavedFile = z.infer<typeof SavedFile>;

/** The result each method answers with. */
export const RESULTS = {
  hello: z.strictObject({ version: z.number().int(), helper: z.string(), platform: z.string() }),
  open: z.strictObject({ pid: z.number().int().positive(), name: z.string() }),
  snapshot: z.strictObject({ root: AxNode }),
  perform: z.strictObject({}),
  set: z.strictObject({}),
  observe: z.strictObject({}),
  permissions: z.strictObject({ accessibility: z.boolean(), inputMonitoring: z.boolean() }),
  'tap.start': z.strictObject({}),
  'tap.stop': z.strictObject({}),
  'fake.files': z.strictObject({ files: z.array(SavedFile) }),
  'fake.human': z.strictObject({}),
} as const satisfies Record<Method, z.ZodType>;
export type ResultOf<M extends Method> = z.infer<(typeof RESULTS)[M]>;

/**
 * Why a helper refused a request. `stale_ref`: the element is gone (kAXErrorInvalidUIElement); `action_not_listed`:
 * not among its AXUIElementCopyActionNames; `not_settable`: AXUIElementIsAttributeSettable said no; `disabled`:
 * AXEnabled is false, checked before AXPress because AX itself answers a press on a disabled button with success
 * and does nothing; `timeout`: the app did not answer within the messaging timeout (kAXErrorCannotComplete);
 * `permission_missing`: Accessibility (or Input Monitoring, for the tap) is not granted.
 */
export const HelperErrorCode = z.enum([
  'stale_ref',
  'action_not_listed',
  'not_settable',
  'disabled',
  'timeout',
  'permission_missing',
  'no_such_app',
  'bad_request',
  'unknown_method',
  'version_mismatch',
  'internal',
]);
export type HelperErrorCode = z.infer<typeof HelperErrorCode>;

export const Response = z.union([
  z.strictObject({ ...envelope, ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ ...envelope, ok: z.literal(false), error: z.strictObject({ code: HelperErrorCode, message: z.string() }) }),
]);
export type Response = z.infer<typeof Response>;

/** A line the helper sends unasked: an AX notification, or a human's input seen by the event tap. */
export const HelperEvent = z.discriminatedUnion('event', [
  z.strictObject({ v: z.literal(PROTOCOL_VERSION), event: z.literal('ax'), notification: AxNotification, pid: z.number().int(), ref: AxRef.optional() }),
  z.strictObject({ v: z.literal(PROTOCOL_VERSION), event: z.literal('input'), kind: z.enum(['key', 'mouse']), at: z.number() }),
]);
export type HelperEvent = z.infer<typeof HelperEvent>;

/** Any line a helper writes: a response (has `id`) or an event (has `event`). */
export const HelperLine = z.union([Response, HelperEvent]);
export type HelperLine = z.infer<typeof HelperLine>;

/** The result of a response, checked against its method's schema. */
export function parseResult<M extends Method>(method: M, result: unknown): ResultOf<M> {
  return RESULTS[method].parse(result) as ResultOf<M>;
}
