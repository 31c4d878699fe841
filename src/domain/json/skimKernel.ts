/**
 * Loads the WebAssembly skim (skimKernel.wat) and gives the scanners one buffer in its
 * memory to read lines from. The skim (skim.ts) uses the kernel for any range of that
 * buffer and its own JS loops for every other buffer, so a runtime without WebAssembly
 * SIMD, or a line that is not in the kernel's memory, only runs slower. Each thread (the
 * extension host, each scan worker) has its own instance.
 */
import { setFlagsFromString } from 'node:v8';
import { SKIM_KERNEL_WASM } from './skimKernelWasm.ts';

/**
 * The few WebAssembly APIs used, typed here: the project's `lib` (es2024, no DOM) does not
 * declare them, though every runtime it targets (Node 22+, Electron) has them.
 */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmGlobal {
  value: number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => { exports: object };
}

interface KernelExports {
  memory: WasmMemory;
  key0_len: WasmGlobal;
  key1_len: WasmGlobal;
  string_end(i: number, end: number): number;
  newline(i: number, end: number): number;
  nested_end(i: number, end: number): number;
  skim(start: number, end: number, descend: number): number;
}

/** Where loaded bytes start in the kernel's memory (the results areas come first). */
const DATA = 131_072;
/** Bytes after the loaded ones that the kernel may read (a `\u` escape at the very end). */
const SLACK = 16;
const PAGE = 65_536;
/** Larger inputs take the JS loops, so one giant line does not keep that much memory. */
export const KERNEL_MAX_BYTES = 16 << 20;
/** skim: more fields or elements than a results area holds. */
export const KERNEL_OVERFLOW = -3;
/** Result areas (in i32 units) and where the names to descend into are kept (bytes). */
export const NESTED_RESULTS = 16_384 / 4;
export const ELEMENT_RESULTS = 32_768 / 4;
/** Fields of the elements that are objects, and per element where they start there and
 * how many there are (-1: not an object). */
export const ELEMENT_FIELD_RESULTS = 65_536 / 4;
export const ELEMENT_SPANS = 98_304 / 4;
/** Fields of an object skimmed without descending (a value inside a line). */
export const PLAIN_RESULTS = 114_688 / 4;
const KEY0 = 49_152;
const KEY1 = 49_408;
const KEY_MAX = 256;
/** The header the kernel writes after each skim (i32 units). */
const HEADER = 49_664 / 4;
const COUNT = HEADER;
const OPEN = HEADER + 1;
const NESTED_COUNT = HEADER + 2;
const NESTED_OPEN = HEADER + 3;
const ELEMENT_COUNT = HEADER + 4;
const SURROGATE = HEADER + 5;
/** Counts read in the walk (see countsOf): their state (i32), values (f64), names. */
const COUNTS_STATE = HEADER + 6;
/** The answer of the key check (see keyCheckOf). */
const KEY_CHECK = HEADER + 7;
const COUNT_VALUES = 49_696;
/** Names the kernel compares keys with (counts, then the key check): lengths, bytes. */
const NAME_LENGTHS = 49_760 / 4;
const NAMES = 49_808;
const NAME_MAX = 64;
/** Names a counts reading takes (see countsOf), and the values it gives. */
const COUNT_NAME_SLOTS = 10;
const COUNT_VALUE_SLOTS = 8;
/** Where the key check's two names are kept, after the counts' ones. */
const KEY_CHECK_NAMES = COUNT_NAME_SLOTS;
/** What validate leaves (i32 units): error code, its index, state, depth. */
const VALIDATION = 61_424 / 4;
/** The container (0 object, 1 array) of each depth open in a validation (bytes). */
const CONTAINERS = 61_456;
/** What became of the area the last readArea gave (see takeArea). */
const AREA_NONE = 0;
const AREA_LIVE = 1;
const AREA_TAKEN = 2;
const AREA_SPOILED = 3;

export class SkimKernel {
  /** The bytes last loaded: the skim uses the kernel for ranges of exactly this Buffer. */
  buf: Buffer = Buffer.alloc(0);
  readonly stringEnd: (i: number, end: number) => number;
  /** The first newline in [i, end) of the loaded bytes, or -1. */
  readonly newline: (i: number, end: number) => number;
  readonly nestedEnd: (i: number, end: number) => number;
  /**
   * Fields of the object at [start, end), with `descend` also those of its object field
   * named by `descendInto` and the elements of that one's array field: see skimKernel.wat.
   */
  readonly skim: (start: number, end: number, descend: number) => number;
  /** The results of the last skim (four numbers per field, two per element). */
  results: Int32Array;
  private readonly exports: KernelExports;
  private memory: Uint8Array;
  private key0 = '';
  private key1 = '';
  private countNames: readonly string[] = [];
  private countNamesUsable = true;
  private checkField = '';
  private checkKey = '';
  private checkUsable = true;
  /** The count values of the last skim (f64 view). */
  private counts: Float64Array;
  /** The whole loadable area as one Buffer (see loadLine). */
  private lineBuf: Buffer;
  /**
   * The area the last readArea gave: the memory it lies in, where it starts (after the
   * room left before it), and whether it is still unread (AREA_LIVE), taken by takeArea,
   * or written over by a load before that (AREA_SPOILED).
   */
  private areaMemory: ArrayBufferLike | undefined;
  private areaStart = -1;
  private areaState = AREA_NONE;

  constructor(exports: KernelExports) {
    this.exports = exports;
    this.stringEnd = exports.string_end;
    this.newline = exports.newline;
    this.nestedEnd = exports.nested_end;
    this.skim = exports.skim;
    this.memory = new Uint8Array(exports.memory.buffer);
    this.results = new Int32Array(exports.memory.buffer, 0, DATA / 4);
    this.counts = new Float64Array(exports.memory.buffer, COUNT_VALUES, COUNT_VALUE_SLOTS);
    this.lineBuf = lineBufferOf(this.memory);
  }

  /** Fields of the last skim's object, and where it opened. */
  get count(): number {
    return this.results[COUNT]!;
  }
  get open(): number {
    return this.results[OPEN]!;
  }
  /** Fields of the object descended into (-1: none), and where it opened. */
  get nestedCount(): number {
    return this.results[NESTED_COUNT]!;
  }
  get nestedOpen(): number {
    return this.results[NESTED_OPEN]!;
  }
  /** Elements of the array descended into (-1: none). */
  get elementCount(): number {
    return this.results[ELEMENT_COUNT]!;
  }

  /**
   * Names the object field a descending skim also skims, and that object's array field
   * whose elements it lists (ASCII names; false when a name cannot be used).
   */
  descendInto(key0: string, key1: string): boolean {
    if (key0 === this.key0 && key1 === this.key1) return true;
    if (!usableName(key0, KEY_MAX) || !usableName(key1, KEY_MAX)) return false;
    this.writeKey(KEY0, key0, this.exports.key0_len);
    this.writeKey(KEY1, key1, this.exports.key1_len);
    this.key0 = key0;
    this.key1 = key1;
    return true;
  }

  private writeKey(at: number, key: string, length: WasmGlobal): void {
    for (let i = 0; i < key.length; i++) this.memory[at + i] = key.charCodeAt(i);
    length.value = key.length;
  }

  /**
   * A Buffer of `bytes` in the kernel's memory, after `room` bytes left free, for a read
   * straight into it: takeArea then makes the room and the bytes read the loaded bytes
   * without copying them. Valid until the next load or readArea on this thread. Undefined
   * when room and bytes are over KERNEL_MAX_BYTES.
   */
  readArea(bytes: number, room = 0): Buffer | undefined {
    if (room + bytes > KERNEL_MAX_BYTES) return undefined;
    this.reserve(room + bytes);
    this.areaMemory = this.memory.buffer;
    this.areaStart = DATA + room;
    this.areaState = AREA_LIVE;
    return Buffer.from(this.memory.buffer, this.areaStart, bytes);
  }

  /**
   * When `bytes` start the area the last readArea gave, unread since and with `room`
   * bytes before it: the room and `bytes` become the loaded bytes, whose Buffer comes
   * back (the caller fills the room). Their bytes are not written, so a view the caller
   * keeps of them stays valid until the next load. Otherwise undefined; it throws when
   * `bytes` are that area written over by a load since (their bytes are lost).
   */
  takeArea(bytes: Uint8Array, room: number): Buffer | undefined {
    if (bytes.buffer !== this.areaMemory) return undefined;
    // The memory grew (a view of the area is detached) or was loaded over.
    const lost =
      this.areaMemory !== this.memory.buffer ||
      (this.areaState === AREA_SPOILED && bytes.byteOffset === this.areaStart);
    if (lost) throw new Error('The read area was loaded over before its bytes were fed');
    if (
      this.areaState !== AREA_LIVE ||
      bytes.byteOffset !== this.areaStart ||
      this.areaStart !== DATA + room
    ) {
      return undefined;
    }
    this.areaState = AREA_TAKEN;
    this.buf = Buffer.from(this.memory.buffer, DATA, room + bytes.length);
    return this.buf;
  }

  /** Whether `bytes` lie in the kernel's memory (so a load may write over them). */
  holds(bytes: Uint8Array): boolean {
    return bytes.buffer === this.memory.buffer;
  }

  /**
   * Copies `bytes` into the kernel's memory and returns the Buffer over that copy, valid
   * until the next load (then reused). Bytes over KERNEL_MAX_BYTES are returned as they are.
   */
  load(bytes: Uint8Array): Buffer {
    if (bytes.length > KERNEL_MAX_BYTES) {
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    }
    this.loadOver();
    this.reserve(bytes.length);
    this.memory.set(bytes, DATA);
    this.buf = Buffer.from(this.memory.buffer, DATA, bytes.length);
    return this.buf;
  }

  /**
   * load() of `head` followed by bytes [0, end) of `tail`, copied into the kernel's memory
   * side by side: a line cut by the end of a read is put together there, not first in a
   * buffer of its own. Longer than KERNEL_MAX_BYTES, a new Buffer of both comes back.
   */
  loadJoined(head: Uint8Array, tail: Uint8Array, end: number): Buffer {
    const bytes = head.length + end;
    if (bytes > KERNEL_MAX_BYTES) return Buffer.concat([head, tail.subarray(0, end)]);
    this.loadOver();
    this.reserve(bytes);
    this.memory.set(head, DATA);
    this.memory.set(tail.subarray(0, end), DATA + head.length);
    this.buf = Buffer.from(this.memory.buffer, DATA, bytes);
    return this.buf;
  }

  /**
   * Copies bytes [start, end) of `src` into the kernel's memory and returns the kernel's
   * line buffer, the copy at [0, end - start): for callers that take one line at a time,
   * so the memory grows to the longest line rather than to a whole chunk. Valid until the
   * next load; a longer range than KERNEL_MAX_BYTES comes back as a view of `src`.
   */
  loadLine(src: Buffer, start: number, end: number): Buffer {
    if (end - start > KERNEL_MAX_BYTES) return src.subarray(start, end);
    this.loadOver();
    this.reserve(end - start);
    src.copy(this.lineBuf, 0, start, end);
    this.buf = this.lineBuf;
    return this.lineBuf;
  }

  /** A load writes where a read area may lie unread: feeding that area then throws. */
  private loadOver(): void {
    if (this.areaState === AREA_LIVE) this.areaState = AREA_SPOILED;
  }

  /** Grows the memory to hold `bytes` loaded bytes (views over it are made again). */
  private reserve(bytes: number): void {
    const need = DATA + bytes + SLACK;
    if (need <= this.memory.length) return;
    this.exports.memory.grow(Math.ceil((need - this.memory.length) / PAGE));
    this.memory = new Uint8Array(this.exports.memory.buffer);
    this.results = new Int32Array(this.exports.memory.buffer, 0, DATA / 4);
    this.counts = new Float64Array(this.exports.memory.buffer, COUNT_VALUES, COUNT_VALUE_SLOTS);
    this.lineBuf = lineBufferOf(this.memory);
  }

  /**
   * Names the counts a descending skim reads from the nested object (usage counts):
   * `[object, number × 4, inner object, inner number × 4]`, empty names for none. False
   * when a name cannot be used (then no counts are read).
   */
  countsOf(names: readonly string[]): boolean {
    // The same list again (a scanner passes its own constant one): nothing to write.
    if (names === this.countNames) return this.countNamesUsable;
    this.countNames = names;
    const usable = names.length === COUNT_NAME_SLOTS && names.every((n) => usableName(n));
    for (let i = 0; i < COUNT_NAME_SLOTS; i++) this.writeName(i, usable ? names[i]! : '');
    this.countNamesUsable = usable;
    return usable;
  }

  /**
   * Names the key check of a descending skim: whether the line's object field `field`
   * has a top-level key `key` (empty names: no check). False when a name cannot be used.
   */
  keyCheckOf(field: string, key: string): boolean {
    if (field === this.checkField && key === this.checkKey) return this.checkUsable;
    this.checkField = field;
    this.checkKey = key;
    this.checkUsable = usableName(field) && usableName(key);
    this.writeName(KEY_CHECK_NAMES, this.checkUsable ? field : '');
    this.writeName(KEY_CHECK_NAMES + 1, this.checkUsable ? key : '');
    return this.checkUsable;
  }

  /**
   * After a descending skim: the key check's answer. 0 the field is absent or not an
   * object, 1 it has the key, 2 it has not, 3 not known (malformed inside).
   */
  get keyCheck(): number {
    return this.results[KEY_CHECK]!;
  }

  private writeName(slot: number, name: string): void {
    for (let j = 0; j < name.length; j++) {
      this.memory[NAMES + slot * NAME_MAX + j] = name.charCodeAt(j);
    }
    this.results[NAME_LENGTHS + slot] = name.length;
  }

  /**
   * After a descending skim: whether the counts were read (1; 3 with their inner
   * object), left to the JS reading (2: a form the kernel does not read) or absent (0).
   */
  get countsState(): number {
    return this.results[COUNTS_STATE]!;
  }

  /** Count `i` of the last skim (0-3 the numbers, 4-7 the inner ones; 0 for none). */
  countValue(i: number): number {
    return this.counts[i]!;
  }

  /** The module's memory, for a module that works on the same loaded bytes (validate.ts). */
  get wasmMemory(): object {
    return this.exports.memory;
  }

  /** After a validation (validate.ts): the state and depth to go on from, the error code and its index. */
  get validationState(): number {
    return this.results[VALIDATION + 2]!;
  }
  get validationDepth(): number {
    return this.results[VALIDATION + 3]!;
  }
  get validationError(): number {
    return this.results[VALIDATION]!;
  }
  get validationErrorAt(): number {
    return this.results[VALIDATION + 1]!;
  }

  /** The containers of depths 1..depth of a validation, to or from `own` (same indexes). */
  putContainers(own: Uint8Array, depth: number): void {
    this.memory.set(own.subarray(1, depth + 1), CONTAINERS + 1);
  }
  takeContainers(own: Uint8Array, depth: number): void {
    own.set(this.memory.subarray(CONTAINERS + 1, CONTAINERS + depth + 1), 1);
  }

  /** Whether a string seen since the last call held a `\uD…` escape (then resets). */
  takeSurrogate(): boolean {
    if (this.results[SURROGATE] === 0) return false;
    this.results[SURROGATE] = 0;
    return true;
  }
}

function lineBufferOf(memory: Uint8Array): Buffer {
  return Buffer.from(memory.buffer, DATA, memory.length - DATA - SLACK);
}

/** A name the kernel can compare raw key bytes with: printable ASCII, `max` bytes at most. */
function usableName(name: string, max = NAME_MAX): boolean {
  return name.length <= max && !/[^\x20-\x7e]/.test(name);
}

/**
 * The exports of the module whose bytes are `base64`, or undefined where WebAssembly (or
 * its SIMD) is missing: the JS loops do the same work.
 */
export function instantiateWasm(base64: string, imports?: object): object | undefined {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (!wasm) return undefined;
  try {
    const bytes = Buffer.from(base64, 'base64');
    // Synchronous: the modules are a few KB, well under any main-thread limit. Compiled
    // by the optimizing tier at once: V8 otherwise starts it in its baseline compiler and
    // moves hot functions up only later, and a cold scan is over before that pays.
    // The flag is V8's, process-wide, so it is set for this compile only.
    let module: object;
    setFlagsFromString('--no-liftoff');
    try {
      module = new wasm.Module(bytes);
    } finally {
      setFlagsFromString('--liftoff');
    }
    return new wasm.Instance(module, imports).exports;
  } catch {
    return undefined;
  }
}

function instantiate(): SkimKernel | undefined {
  const exports = instantiateWasm(SKIM_KERNEL_WASM);
  return exports && new SkimKernel(exports as KernelExports);
}

/** This thread's kernel; undefined where WebAssembly SIMD is unavailable. */
export const kernel: SkimKernel | undefined = instantiate();
