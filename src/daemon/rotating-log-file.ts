import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export interface RotationLimits {
  /** A line that would take the file past this size rotates it first. */
  maxBytes: number;
  /** Rotated files kept: `<path>.1` (newest) … `<path>.<keep>`; 0 = none kept. */
  keep: number;
}

/**
 * An append-only file rotated by size (ADR 0054): before a write that would pass `maxBytes`,
 * `<path>.<n>` becomes `<path>.<n+1>` (the oldest beyond `keep` is removed), `<path>` becomes
 * `<path>.1` and a new `<path>` is started. Writes are synchronous so that the lines logged just
 * before `process.exit` (the second SIGTERM) are on disk; a daemon logs a few lines a minute.
 * `limits` is read at every write, so a reloaded config applies at once.
 */
export class RotatingLogFile {
  private fd: number | null = null;
  private size = 0;

  constructor(
    readonly path: string,
    private readonly limits: () => RotationLimits,
  ) {}

  write(line: string): void {
    const bytes = Buffer.from(line);
    if (this.fd === null) this.open();
    const { maxBytes, keep } = this.limits();
    if (this.size > 0 && this.size + bytes.length > maxBytes) this.rotate(keep);
    writeSync(this.fd as number, bytes);
    this.size += bytes.length;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    this.fd = openSync(this.path, "a", 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private rotate(keep: number): void {
    this.close();
    rmSync(`${this.path}.${keep}`, { force: true });
    for (let n = keep - 1; n >= 1; n--) {
      try {
        renameSync(`${this.path}.${n}`, `${this.path}.${n + 1}`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    if (keep > 0) renameSync(this.path, `${this.path}.1`);
    else rmSync(this.path, { force: true });
    this.open();
  }
}
