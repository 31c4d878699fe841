/**
 * A file read with blocking system calls, behind the few FileHandle methods ScanCache
 * uses: for a thread that does nothing but scan (a scan helper, the usage-report CLI).
 * Each promise-based call is a round trip through libuv's thread pool, which on a small
 * machine costs several times the copy out of the page cache it waits for.
 */
import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** The part of a FileHandle that a scan reads a file through. */
export interface ReadHandle {
  read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number; buffer: Buffer }>;
  stat(): Promise<Stats>;
  close(): Promise<void>;
}

/** A handle openBlocking gave: it can also read without a promise. */
export interface BlockingHandle extends ReadHandle {
  readNow(buffer: Buffer, offset: number, length: number, position: number): number;
}

class BlockingFile implements BlockingHandle {
  private fd: number | undefined;

  constructor(fd: number) {
    this.fd = fd;
  }

  /**
   * The read, done before it returns: no turn of the microtask queue between a read and
   * the scan of what it read, in which another file's scan could read into the same
   * memory (the skim kernel's read area).
   */
  readNow(buffer: Buffer, offset: number, length: number, position: number): number {
    return readSync(this.open(), buffer, offset, length, position);
  }

  read(buffer: Buffer, offset: number, length: number, position: number) {
    try {
      return Promise.resolve({ bytesRead: this.readNow(buffer, offset, length, position), buffer });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  stat(): Promise<Stats> {
    try {
      return Promise.resolve(fstatSync(this.open()));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  close(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) closeSync(fd);
    return Promise.resolve();
  }

  private open(): number {
    if (this.fd === undefined) throw new Error('file closed');
    return this.fd;
  }
}

export function isBlocking(handle: ReadHandle): handle is BlockingHandle {
  return handle instanceof BlockingFile;
}

/**
 * Opens `path` for blocking reads. Settles after a turn of the event loop, so that a
 * thread scanning file after file still takes its messages between files.
 */
export function openBlocking(path: string): Promise<ReadHandle> {
  return new Promise((resolve, reject) =>
    setImmediate(() => {
      try {
        resolve(new BlockingFile(openSync(path, 'r')));
      } catch (error) {
        reject(error as Error);
      }
    }),
  );
}
