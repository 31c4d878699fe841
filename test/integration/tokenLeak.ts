/**
 * The token-leak check at the end of the integration tier: after the VS Code windows
 * closed, every file they wrote (code-server's user data and log, the extension output
 * logs, the browser profile with the workbench's global and workspace storage, webview
 * state and secret storage) is read as bytes and searched for the tokens the tests used.
 *
 * Browser storage is LevelDB: its .ldb tables hold Snappy-compressed blocks, in which a
 * token can be split by back-references. Each table's blocks are decompressed and
 * searched as well as the raw file. Strings may be stored as UTF-16, so each token is
 * looked for in UTF-8 and UTF-16LE. SQLite files (desktop VS Code's state.vscdb) keep
 * text as it is and are searched raw.
 *
 * Secret storage legitimately holds the tokens. In the web workbench (code-server) it is
 * localStorage["secrets.provider"] in the browser profile, AES-GCM sealed with a key made
 * of a half stored beside the value and a half the server hands out (/mint-key; code-server
 * keeps it in <user-data>/serve-web-key-half). That is obfuscation at rest rather than
 * protection, but no token is in it as text, so nothing needs excluding. Were secrets ever
 * kept in clear (a workbench without WebCrypto seals nothing), the check would report it.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Secret {
  /** How the report names it (never the value). */
  name: string;
  /** An exact value, or a pattern for values not known in advance (per-run demo tokens). */
  value: string | RegExp;
}

export interface Finding {
  file: string;
  secret: string;
  /** utf-8, utf-16le, or either inside a decompressed LevelDB block. */
  form: string;
}

export interface LeakReport {
  files: number;
  bytes: number;
  /** LevelDB tables whose blocks were decompressed and searched. */
  tables: number;
  findings: Finding[];
}

/** Every regular file under `roots` (symlinks are not followed). */
function filesUnder(roots: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    let st;
    try {
      st = lstatSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const name of readdirSync(p).sort()) walk(path.join(p, name));
    else if (st.isFile()) out.push(p);
  };
  for (const root of roots) walk(root);
  return out;
}

/** The forms of `secret` found in `bytes`. */
function search(bytes: Buffer, secret: Secret, where: string): string[] {
  const forms: string[] = [];
  if (typeof secret.value === 'string') {
    if (bytes.includes(Buffer.from(secret.value, 'utf8'))) forms.push(`${where}utf-8`);
    if (bytes.includes(Buffer.from(secret.value, 'utf16le'))) forms.push(`${where}utf-16le`);
  } else {
    const pattern = new RegExp(secret.value.source, secret.value.flags.replace('g', ''));
    if (pattern.test(bytes.toString('latin1'))) forms.push(`${where}utf-8`);
    // UTF-16LE text, read as code units from either byte alignment.
    if (
      pattern.test(bytes.toString('utf16le')) ||
      pattern.test(bytes.subarray(1).toString('utf16le'))
    )
      forms.push(`${where}utf-16le`);
  }
  return forms;
}

/** Searches every file under `roots` for every secret. */
export function scanForSecrets(roots: readonly string[], secrets: readonly Secret[]): LeakReport {
  const report: LeakReport = { files: 0, bytes: 0, tables: 0, findings: [] };
  for (const file of filesUnder(roots)) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue; // removed while we looked (a lock file)
    }
    report.files++;
    report.bytes += bytes.length;
    const blocks = /\.(ldb|sst)$/.test(file) ? levelDbBlocks(bytes) : [];
    if (blocks.length) report.tables++;
    for (const secret of secrets) {
      const forms = new Set(search(bytes, secret, ''));
      for (const block of blocks)
        for (const f of search(block, secret, 'leveldb block, ')) forms.add(f);
      for (const form of forms) report.findings.push({ file, secret: secret.name, form });
    }
  }
  return report;
}

// ── LevelDB tables and Snappy ────────────────────────────────────────────────────────

const TABLE_MAGIC = Buffer.from([0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb]);
const FOOTER = 48;
const TRAILER = 5;

function varint(buf: Buffer, at: { i: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (at.i >= buf.length) throw new Error('varint past the end');
    const b = buf[at.i++]!;
    result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return result;
    shift += 7;
    if (shift > 63) throw new Error('varint too long');
  }
}

/** The block at `handle`, decompressed if it is Snappy-compressed (type 1). */
function readBlock(table: Buffer, offset: number, size: number): Buffer {
  if (offset + size + TRAILER > table.length) throw new Error('block past the end');
  const data = table.subarray(offset, offset + size);
  const type = table[offset + size];
  if (type === 0) return data;
  if (type === 1) return snappyDecompress(data);
  throw new Error(`unknown block compression ${type}`);
}

/**
 * The decompressed data blocks of a LevelDB table (its index block lists them), or none
 * when the file is not a table this can read (then the raw search is all there is).
 */
export function levelDbBlocks(table: Buffer): Buffer[] {
  try {
    if (table.length < FOOTER || !table.subarray(table.length - 8).equals(TABLE_MAGIC)) return [];
    const at = { i: table.length - FOOTER };
    varint(table, at); // metaindex offset
    varint(table, at); // metaindex size
    const index = readBlock(table, varint(table, at), varint(table, at));
    const restarts = index.readUInt32LE(index.length - 4);
    const end = index.length - 4 - restarts * 4;
    const blocks: Buffer[] = [];
    for (const p = { i: 0 }; p.i < end;) {
      varint(index, p); // shared key bytes
      const unshared = varint(index, p);
      const valueLength = varint(index, p);
      p.i += unshared;
      const handle = { i: p.i };
      blocks.push(readBlock(table, varint(index, handle), varint(index, handle)));
      p.i += valueLength;
    }
    return blocks;
  } catch {
    return [];
  }
}

/** Raw Snappy (the format of LevelDB's compressed blocks). */
export function snappyDecompress(input: Buffer): Buffer {
  const at = { i: 0 };
  const length = varint(input, at);
  const out = Buffer.alloc(length);
  let o = 0;
  let i = at.i;
  while (i < input.length) {
    const tag = input[i++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let n = tag >> 2;
      if (n >= 60) {
        const bytes = n - 59;
        n = input.readUIntLE(i, bytes);
        i += bytes;
      }
      n += 1;
      if (o + n > length || i + n > input.length) throw new Error('literal past the end');
      input.copy(out, o, i, i + n);
      i += n;
      o += n;
      continue;
    }
    let n: number;
    let offset: number;
    if (kind === 1) {
      n = ((tag >> 2) & 7) + 4;
      offset = ((tag >> 5) << 8) | input[i++]!;
    } else if (kind === 2) {
      n = (tag >> 2) + 1;
      offset = input.readUInt16LE(i);
      i += 2;
    } else {
      n = (tag >> 2) + 1;
      offset = input.readUInt32LE(i);
      i += 4;
    }
    if (offset === 0 || offset > o || o + n > length) throw new Error('bad copy');
    for (let k = 0; k < n; k++, o++) out[o] = out[o - offset]!;
  }
  if (o !== length) throw new Error('short output');
  return out;
}
