import { RotatingLogFile, type RotationLimits } from "./rotating-log-file.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

/** What the daemon's parts log through. */
export interface DaemonLogger {
  log(level: LogLevel, msg: string, fields?: LogFields): void;
  close(): void;
}

export interface DaemonLoggerOptions {
  /** `<root>/logs/daemon.log`: one JSON object per line, always. */
  file: string;
  limits: () => RotationLimits;
  /** stderr: `human` (`devflow daemon: <msg>`) or `json` (the file's lines). */
  format: "human" | "json";
  stderr: (text: string) => void;
  /** Applied to every line before it is written anywhere (secrets from the environment, keys, tokens). */
  redact: (text: string) => string;
  now?: () => Date;
}

/**
 * The daemon's structured log (ADR 0054): `{time, level, msg, fields}` per line in a size-rotated
 * file, and the same event on stderr for a person (or as JSON with `--log-format json`). Every
 * line goes through the redactor first, so no secret reaches a log. A log that cannot be written
 * (a full disk) says so once on stderr and keeps the daemon running.
 */
export function createDaemonLogger(opts: DaemonLoggerOptions): DaemonLogger {
  const file = new RotatingLogFile(opts.file, opts.limits);
  const now = opts.now ?? (() => new Date());
  let fileBroken = false;
  return {
    log(level, msg, fields) {
      const event = { time: now().toISOString(), level, msg, ...(fields ? { fields } : {}) };
      const json = opts.redact(JSON.stringify(event));
      try {
        file.write(`${json}\n`);
      } catch (error) {
        if (!fileBroken)
          opts.stderr(`devflow daemon: cannot write ${opts.file}: ${(error as Error).message}\n`);
        fileBroken = true;
      }
      if (opts.format === "json") opts.stderr(`${json}\n`);
      else {
        // A person reads the message; the fields are for machines (the file, --log-format json).
        const mark = level === "warn" || level === "error" ? `${level}: ` : "";
        opts.stderr(opts.redact(`devflow daemon: ${mark}${msg}\n`));
      }
    },
    close: () => file.close(),
  };
}
