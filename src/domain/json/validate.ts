/**
 * The scanner's validating mode: whether bytes are JSON exactly as JSON.parse decides,
 * without building anything. The transcript index runs it over each line before skimming
 * the line's fields (skim.ts), because the skim checks only the structure it walks and a
 * record that JSON.parse would reject must show as an error.
 *
 * It is fed line by line and keeps its state between lines, so a pretty-printed value
 * spanning many lines is checked like a one-line value. A string cannot span lines (a raw
 * newline inside a string is not JSON). Bytes in the kernel's buffer (skimKernel.ts) are
 * checked by the WebAssembly `validate` (validateKernel.wat, which shares the kernel's
 * memory), 16 bytes at a time inside strings; this file's loop is the same state machine
 * for every other buffer and where WebAssembly is missing.
 */
import { instantiateWasm, kernel, type SkimKernel } from './skimKernel.ts';
import { literalEnd, numberEnd } from './jsonScalars.ts';
import { VALIDATE_KERNEL_WASM } from './validateKernelWasm.ts';

/** feed(): the value continues on the next line. */
export const JSON_MORE = 0;
/** feed(): the value is complete and valid. */
export const JSON_DONE = 1;
/** feed(): not JSON (see `error`). */
export const JSON_INVALID = 2;

const ST_VALUE = 0; // a value must come (top level, after ':' or after ',' in an array)
const ST_VALUE_OR_CLOSE = 1; // after '['
const ST_KEY_OR_CLOSE = 2; // after '{'
const ST_KEY = 3; // after ',' in an object
const ST_COLON = 4;
const ST_NEXT = 5; // after a value in a container: ',' or the closing bracket
const ST_DONE = 6; // the top-level value is complete

const OBJ = 0;
const ARR = 1;

/** Deeper nesting is reported as an error (JSON.parse itself goes deeper). */
const MAX_DEPTH = 1000;

/** Error codes, the same in skimKernel.wat. */
const E_UNTERMINATED = 1;
const E_CONTROL = 2;
const E_ESCAPE = 3;
const E_SEPARATOR = 4;
const E_KEY = 5;
const E_COLON = 6;
const E_TRAILING = 7;
const E_DEPTH = 8;
const E_CHARACTER = 9;
const E_NUMBER = 10;
const E_LITERAL = 11;

function message(code: number, at: number, c: number): string {
  switch (code) {
    case E_UNTERMINATED:
      return 'unterminated string';
    case E_CONTROL:
      return 'control character in a string';
    case E_ESCAPE:
      return 'invalid escape';
    case E_SEPARATOR:
      return `expected ',' or a matching bracket at byte ${at}`;
    case E_KEY:
      return `expected a key at byte ${at}`;
    case E_COLON:
      return `expected ':' at byte ${at}`;
    case E_TRAILING:
      return `unexpected data after the JSON value at byte ${at}`;
    case E_DEPTH:
      return 'nesting too deep';
    case E_NUMBER:
      return 'invalid number';
    case E_LITERAL:
      return 'invalid literal';
    default:
      return `unexpected character '${String.fromCharCode(c)}'`;
  }
}

type WasmValidate = (start: number, end: number, state: number, depth: number) => number;

/**
 * The WebAssembly validate (validateKernel.wat) over the kernel's memory, made on first
 * use: only threads that validate compile it. Null where it cannot be made.
 */
let wasmValidate: WasmValidate | null | undefined;

function kernelValidate(k: SkimKernel): WasmValidate | null {
  if (wasmValidate === undefined) {
    const exports = instantiateWasm(VALIDATE_KERNEL_WASM, { kernel: { memory: k.wasmMemory } });
    wasmValidate = (exports as { validate?: WasmValidate } | undefined)?.validate ?? null;
  }
  return wasmValidate;
}

/** Whether this thread validates the kernel's bytes in WebAssembly (else in JS, slower). */
export function validatesInKernel(): boolean {
  return kernel !== undefined && kernelValidate(kernel) !== null;
}

export class JsonValidator {
  /** Why the last value was not JSON (the first error since reset). */
  error = '';
  private state = ST_VALUE;
  private depth = 0;
  private readonly containers = new Uint8Array(MAX_DEPTH + 2);

  /** The next feed starts a new value. */
  reset(): void {
    this.depth = 0;
    this.state = ST_VALUE;
    this.error = '';
  }

  /** Checks bytes [start, end) of one line: JSON_DONE, JSON_MORE or JSON_INVALID. */
  feed(buf: Buffer, start: number, end: number): number {
    const k = kernel;
    const validate = k !== undefined && buf === k.buf ? kernelValidate(k) : null;
    if (k === undefined || validate === null) return this.feedJs(buf, start, end);
    // The kernel keeps one validation's open containers: a value spanning lines brings
    // its own (another validator may have run in between).
    if (this.depth > 0) k.putContainers(this.containers, this.depth);
    const status = validate(start, end, this.state, this.depth);
    this.state = k.validationState;
    this.depth = k.validationDepth;
    if (status === JSON_INVALID) {
      const at = k.validationErrorAt;
      return this.stop(k.validationError, at - start, buf[at]!);
    }
    if (this.depth > 0) k.takeContainers(this.containers, this.depth);
    return status;
  }

  /**
   * feed() in JS: one flat loop with the state in locals. Long on purpose: it mirrors the
   * WebAssembly kernel's loop state for state, and a function per state would be a call
   * per byte.
   */
  private feedJs(buf: Buffer, start: number, end: number): number {
    const containers = this.containers;
    let state = this.state;
    let depth = this.depth;
    let i = start;
    let code = 0;
    while (i < end) {
      const c = buf[i]!;
      if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) {
        i++;
        continue;
      }
      if (state === ST_NEXT) {
        if (c === 0x2c) {
          state = containers[depth] === OBJ ? ST_KEY : ST_VALUE;
          i++;
          continue;
        }
        if (
          (c === 0x7d && containers[depth] === OBJ) ||
          (c === 0x5d && containers[depth] === ARR)
        ) {
          depth--;
          state = depth === 0 ? ST_DONE : ST_NEXT;
          i++;
          continue;
        }
        code = E_SEPARATOR;
        break;
      }
      if (state === ST_KEY || state === ST_KEY_OR_CLOSE) {
        if (c === 0x22) {
          const q = validStringEnd(buf, i, end);
          if (q < 0) {
            code = -q;
            break;
          }
          i = q;
          state = ST_COLON;
          continue;
        }
        if (c === 0x7d && state === ST_KEY_OR_CLOSE) {
          depth--;
          state = depth === 0 ? ST_DONE : ST_NEXT;
          i++;
          continue;
        }
        code = E_KEY;
        break;
      }
      if (state === ST_COLON) {
        if (c !== 0x3a) {
          code = E_COLON;
          break;
        }
        state = ST_VALUE;
        i++;
        continue;
      }
      if (state === ST_DONE) {
        code = E_TRAILING;
        break;
      }
      // ST_VALUE or ST_VALUE_OR_CLOSE: a value starts here.
      if (c === 0x5d && state === ST_VALUE_OR_CLOSE) {
        depth--;
        state = depth === 0 ? ST_DONE : ST_NEXT;
        i++;
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (depth >= MAX_DEPTH) {
          code = E_DEPTH;
          break;
        }
        const isArray = c === 0x5b;
        depth++;
        containers[depth] = isArray ? ARR : OBJ;
        state = isArray ? ST_VALUE_OR_CLOSE : ST_KEY_OR_CLOSE;
        i++;
        continue;
      }
      let next: number;
      if (c === 0x22) {
        next = validStringEnd(buf, i, end);
        if (next < 0) {
          code = -next;
          break;
        }
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        next = numberEnd(buf, i, end);
        if (next < 0) {
          code = E_NUMBER;
          break;
        }
      } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
        next = literalEnd(buf, i, end);
        if (next < 0) {
          code = E_LITERAL;
          break;
        }
      } else {
        code = E_CHARACTER;
        break;
      }
      i = next;
      state = depth === 0 ? ST_DONE : ST_NEXT;
    }
    this.state = state;
    this.depth = depth;
    if (code !== 0) return this.stop(code, i - start, buf[i]!);
    return state === ST_DONE ? JSON_DONE : JSON_MORE;
  }

  private stop(code: number, at: number, c: number): number {
    if (!this.error) this.error = message(code, at, c);
    return JSON_INVALID;
  }
}

/** Characters allowed after a backslash (besides 'u'): " \\ / b f n r t. */
const ESCAPABLE = new Uint8Array(256);
for (const ch of '"\\/bfnrt') ESCAPABLE[ch.charCodeAt(0)] = 1;

/**
 * Index just past the closing quote of the string opening at `i`; -E_UNTERMINATED,
 * -E_CONTROL or -E_ESCAPE when it is not a JSON string.
 */
function validStringEnd(buf: Buffer, i: number, end: number): number {
  let j = i + 1;
  for (;;) {
    while (j < end) {
      const d = buf[j]!;
      if (d === 0x22 || d === 0x5c || d < 0x20) break;
      j++;
    }
    if (j >= end) return -E_UNTERMINATED;
    const c = buf[j]!;
    if (c === 0x22) return j + 1;
    if (c !== 0x5c) return -E_CONTROL;
    if (j + 1 >= end) return -E_UNTERMINATED;
    const e = buf[j + 1]!;
    if (e === 0x75) {
      if (j + 5 >= end) return -E_UNTERMINATED;
      for (let k = j + 2; k < j + 6; k++) if (!isHex(buf[k]!)) return -E_ESCAPE;
      j += 6;
    } else if (ESCAPABLE[e] === 1) {
      j += 2;
    } else {
      return -E_ESCAPE;
    }
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
