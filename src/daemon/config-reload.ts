import { type FSWatcher, watch } from "node:fs";
import type { DaemonConfig } from "../artifacts/schemas/ticket.js";
import { messageOf } from "../errors/index.js";
import { configStamp, type LoadedDaemonConfig, loadDaemonConfig } from "./daemon-config.js";

const SETTLE_MS = 150;

/** Keys that a reload cannot change in a running daemon (they are bound at start). */
export const RESTART_KEYS = ["worker.healthPort"] as const;

export interface ConfigReloadOptions {
  root: string;
  initial: LoadedDaemonConfig;
  /** A valid new config: apply it. */
  apply: (config: DaemonConfig, previous: DaemonConfig) => void;
  /** An invalid one: say why (the old config stays). */
  refused: (why: string) => void;
  /** Seconds between the cheap stamp checks (fs.watch misses events on some file systems). */
  checkEverySeconds: () => number;
}

/**
 * Hot reload of the daemon's config (ADR 0054): fs.watch on the data root, plus a stat of the
 * candidate files every poll interval because fs.watch is unreliable (network file systems,
 * editors that rename). A changed stamp that holds still for 150 ms (a file being written is not
 * judged half-way) loads the file again: valid → `apply`; invalid (or two
 * config files) → `refused`, and the previous config stays in force. Each stamp is judged once,
 * so an invalid file is reported once, not at every check.
 */
export class ConfigReloader {
  private stamp: string;
  private current: LoadedDaemonConfig;
  private lastError: string | null = null;
  private loadedAt = new Date();
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(private readonly opts: ConfigReloadOptions) {
    this.current = opts.initial;
    this.stamp = opts.initial.stamp;
  }

  start(): void {
    try {
      this.watcher = watch(this.opts.root, { persistent: false }, () => void this.check());
      this.watcher.on("error", () => this.watcher?.close());
    } catch {
      this.watcher = null; // the timer alone still sees every change
    }
    this.arm();
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    if (this.timer) clearTimeout(this.timer);
  }

  /** What /health shows about the config. */
  state(): { path: string | null; loaded_at: string; last_error: string | null } {
    return { path: this.current.path, loaded_at: this.loadedAt.toISOString(), last_error: this.lastError };
  }

  /** Checks the stamp now (one check at a time; a change seen meanwhile is checked after it). */
  check(): Promise<void> {
    if (this.checking) {
      this.again = true;
      return this.checking;
    }
    this.checking = this.checkOnce().finally(() => {
      this.checking = null;
      if (this.again && !this.closed) {
        this.again = false;
        void this.check();
      }
    });
    return this.checking;
  }

  private arm(): void {
    if (this.closed) return;
    this.timer = setTimeout(
      () => void this.check().finally(() => this.arm()),
      this.opts.checkEverySeconds() * 1000,
    );
    this.timer.unref();
  }

  private async checkOnce(): Promise<void> {
    const { stamp } = await configStamp(this.opts.root);
    if (stamp === this.stamp || this.closed) return;
    // A file being written (truncated, then filled) must not be judged half-written: the change
    // counts once the stamp has held still for SETTLE_MS.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    if ((await configStamp(this.opts.root)).stamp !== stamp) {
      this.again = true;
      return;
    }
    let loaded: LoadedDaemonConfig;
    try {
      loaded = await loadDaemonConfig(this.opts.root);
    } catch (error) {
      this.stamp = stamp;
      this.lastError = messageOf(error);
      this.opts.refused(this.lastError);
      return;
    }
    // A file rewritten between the stat and the read is judged again at the next check.
    this.stamp = loaded.stamp;
    const previous = this.current.config;
    this.current = loaded;
    this.lastError = null;
    this.loadedAt = new Date();
    this.opts.apply(loaded.config, previous);
  }
}

/** `key: old → new` for each changed key (one level into `worker`), for the reload's log line. */
export function configChanges(previous: DaemonConfig, next: DaemonConfig): string[] {
  const changes: string[] = [];
  const show = (v: unknown) => JSON.stringify(v) ?? "unset";
  for (const key of new Set([...Object.keys(previous), ...Object.keys(next)]) as Set<keyof DaemonConfig>) {
    if (key === "worker") continue;
    if (show(previous[key]) !== show(next[key]))
      changes.push(`${key}: ${show(previous[key])} → ${show(next[key])}`);
  }
  const pw = previous.worker as Record<string, unknown>;
  const nw = next.worker as Record<string, unknown>;
  for (const key of new Set([...Object.keys(pw), ...Object.keys(nw)]))
    if (show(pw[key]) !== show(nw[key])) changes.push(`worker.${key}: ${show(pw[key])} → ${show(nw[key])}`);
  return changes;
}
