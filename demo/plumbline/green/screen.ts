// A green screen as data (protected text and input fields at rows and columns) and its Erase/Write record.
// See docs/design/demo.md, "Demo apps" (PLUMBLINE's green screen) and GA23-0059 for the orders used.
import {
  CMD_ERASE_WRITE, FA_INTENSIFIED, FA_NONDISPLAY, FA_NUMERIC, FA_PROTECTED, ORDER_IC, ORDER_SBA, ORDER_SF,
  WCC_ALARM, WCC_RESET_MDT, WCC_RESTORE, encodeAddress, encodeAttribute, encodeWcc, toEbcdic,
} from './codec.ts';

/** Model 2: 24 rows of 80. Every IBM-3278-n (and 3279) answers Erase/Write on its default 24x80 screen. */
export const ROWS = 24;
export const COLS = 80;

/** Text the operator cannot change, starting at row/col (1-based); its attribute byte sits in the cell before. */
export interface Label { row: number; col: number; text: string; bright?: boolean }
/** A field the operator types into, starting at row/col; a protected stop attribute follows its last cell. */
export interface Input {
  name: string;
  row: number;
  col: number;
  length: number;
  value?: string;
  numeric?: boolean;
  /** Non-display: typed characters are not shown (a password). */
  hidden?: boolean;
}
export interface Screen {
  labels: Label[];
  inputs: Input[];
  /** The input the cursor starts in; the first input when not given. */
  cursor?: string;
  alarm?: boolean;
}

/** Buffer address of a 1-based row and column. */
export function addressOf(row: number, col: number): number {
  return (row - 1) * COLS + (col - 1);
}

interface Cell { at: number; attribute: number; text: string }

function cells(screen: Screen): Cell[] {
  const out: Cell[] = [];
  for (const l of screen.labels) {
    out.push({ at: addressOf(l.row, l.col) - 1, attribute: FA_PROTECTED | (l.bright ? FA_INTENSIFIED : 0), text: l.text });
  }
  for (const f of screen.inputs) {
    const start = addressOf(f.row, f.col);
    const attribute = (f.numeric ? FA_NUMERIC : 0) | (f.hidden ? FA_NONDISPLAY : 0);
    out.push({ at: start - 1, attribute, text: (f.value ?? '').slice(0, f.length) });
    // The stop attribute ends the input where the screen says it ends (GA23-0059, "Field Attributes").
    out.push({ at: start + f.length, attribute: FA_PROTECTED, text: '' });
  }
  return out.sort((a, b) => a.at - b.at);
}

/**
 * The Erase/Write record for a screen: WCC (keyboard restore, reset MDT, alarm on errors), then SBA + SF + text for
 * every field in address order, then SBA + IC at the cursor. Overlapping fields are a layout bug, so they throw.
 */
export function encodeScreen(screen: Screen): Buffer {
  const out: number[] = [CMD_ERASE_WRITE, encodeWcc(WCC_RESTORE | WCC_RESET_MDT | (screen.alarm ? WCC_ALARM : 0))];
  let end = -1;
  for (const c of cells(screen)) {
    if (c.at < 0 || c.at + c.text.length >= ROWS * COLS) throw new RangeError(`field at ${c.at} is off the screen`);
    if (c.at <= end) throw new RangeError(`field at ${c.at} overlaps the one ending at ${end}`);
    out.push(ORDER_SBA, ...encodeAddress(c.at), ORDER_SF, encodeAttribute(c.attribute), ...toEbcdic(c.text));
    end = c.at + c.text.length;
  }
  const first = screen.inputs.find((f) => f.name === screen.cursor) ?? screen.inputs[0];
  if (first) out.push(ORDER_SBA, ...encodeAddress(addressOf(first.row, first.col)), ORDER_IC);
  return Buffer.from(out);
}

/** Which input each inbound field address belongs to. */
export function inputAt(screen: Screen, address: number): Input | undefined {
  return screen.inputs.find((f) => addressOf(f.row, f.col) === address);
}
