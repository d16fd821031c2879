import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeStaleReport } from "./test-reports/index.js";

/**
 * A report channel (ADR 0089): a Unix socket devflow listens on for one run, to which devflow's
 * reporter in the runner (jest's, vitest's) sends the run's report. A report file sits in a
 * directory the run may write, so any process of the run can rewrite it after the runner wrote it
 * (attack 54e); a connection is one writer's. The reporter connects when the runner makes it,
 * before any test file runs, and devflow accepts exactly one connection: a process of the run that
 * sends results of its own makes a second one, and the run fails; one that kills the runner leaves
 * the reporter's connection without a report (attack 55). What the channel cannot tell apart is
 * said in ADR 0089, "Left".
 *
 * Linux: an abstract socket (no file: nothing to unlink or replace, reachable from the run's mount
 * namespace, which shares devflow's network namespace, ADR 0069). Windows: a named pipe.
 * Elsewhere: a socket file in a fresh private directory.
 */
export const REPORT_SOCKET_ENV = "DEVFLOW_REPORT_SOCKET";
/** The channel's limit, for a hook that buffers the report first (tape's wrapper keeps no more). */
export const REPORT_MAX_BYTES_ENV = "DEVFLOW_REPORT_MAX_BYTES";

/** The most bytes one report may have; past it the connection is cut and the run fails, saying so. */
export const REPORT_CHANNEL_MAX_BYTES = 64 * 1024 * 1024;

/** How long devflow waits, after the run ended, for its connections to close. */
const CLOSE_WAIT_MS = 5_000;

export type ChannelResult =
  | { kind: "report"; text: string }
  | { kind: "none" }
  /**
   * Why what arrived cannot be the runner's report; the run fails with it. `tamper`: something
   * other than devflow's hook wrote to the channel (said as a tamper finding); else a limit hit.
   */
  | { kind: "refused"; reason: string; tamper: boolean };

export interface ReportChannel {
  /** The environment the run needs: the reporter reads the address from it. */
  env: Record<string, string>;
  /** Stops listening, waits for the connections to close and says what arrived. */
  close(): Promise<ChannelResult>;
}

interface Connection {
  socket: Socket;
  chunks: Buffer[];
  bytes: number;
  ended: boolean;
  tooLarge: boolean;
  closed: Promise<void>;
}

export async function openReportChannel(
  runner: string,
  maxBytes = REPORT_CHANNEL_MAX_BYTES,
  closeWaitMs = CLOSE_WAIT_MS,
): Promise<ReportChannel> {
  const connections: Connection[] = [];
  const server = createServer({ allowHalfOpen: false }, (socket) => {
    const connection: Connection = {
      socket,
      chunks: [],
      bytes: 0,
      ended: false,
      tooLarge: false,
      closed: new Promise((resolve) => socket.once("close", () => resolve())),
    };
    connections.push(connection);
    socket.on("data", (chunk: Buffer) => {
      connection.bytes += chunk.length;
      if (connection.bytes > maxBytes) {
        connection.tooLarge = true;
        socket.destroy();
        return;
      }
      connection.chunks.push(chunk);
    });
    socket.once("end", () => {
      connection.ended = true;
    });
    socket.on("error", () => socket.destroy());
  });
  const { address, cleanup } = socketAddress();
  await listen(server, address);
  return {
    // An environment value cannot hold the abstract name's leading NUL: `@` stands for it (as `ss` shows it).
    env: { [REPORT_SOCKET_ENV]: address.replace(/^\0/, "@"), [REPORT_MAX_BYTES_ENV]: String(maxBytes) },
    async close() {
      // A connection a process of the run made just before the run ended may still wait in the
      // listen queue; closing the server would drop it uncounted. One pass of the event loop
      // through its poll phase (two turns of setImmediate) accepts what is queued.
      for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      // Not awaited: `server.close`'s callback waits for every connection to close, and a process
      // holding one open (another run's, a survivor) would hold devflow here for as long as it lives.
      server.close();
      cleanup();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(connections.map((c) => c.closed)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, closeWaitMs);
        }),
      ]);
      clearTimeout(timer);
      for (const c of connections) c.socket.destroy();
      return judge(runner, connections, maxBytes);
    },
  };
}

/**
 * Ends a run's report channel and puts what the reporter sent where the runner's own report would
 * be, for every reader of the report file. Whatever the run left at that path goes first: it is
 * not the reporter's. Returns why the channel's report cannot be the runner's (the run's failure,
 * `tamper: …` when something else wrote to the channel), or null.
 */
export async function deliverReport(channel: ReportChannel, reportPath: string): Promise<string | null> {
  const result = await channel.close();
  await removeStaleReport(reportPath);
  if (result.kind === "refused") return result.tamper ? `tamper: ${result.reason}` : result.reason;
  if (result.kind !== "report") return null;
  try {
    // `wx`: a file (or a link to one) the run made at this path after the removal is not followed.
    writeFileSync(reportPath, result.text, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return `tamper: a process of the run made ${reportPath} again while devflow wrote the report there`;
  }
  return null;
}

function judge(runner: string, connections: readonly Connection[], maxBytes: number): ChannelResult {
  if (connections.length === 0) return { kind: "none" };
  if (connections.length > 1)
    return {
      kind: "refused",
      tamper: true,
      reason: `${connections.length} connections reached devflow's report channel, where only devflow's hook in ${runner} may connect, once: a process of the run sent results of its own`,
    };
  const [only] = connections as [Connection];
  if (only.tooLarge)
    return { kind: "refused", tamper: false, reason: `the ${runner} report passed ${maxBytes} bytes` };
  if (!only.ended)
    return {
      kind: "refused",
      tamper: false,
      reason: `the connection of devflow's hook in ${runner} ended before its report was complete`,
    };
  return { kind: "report", text: Buffer.concat(only.chunks).toString("utf8") };
}

function socketAddress(): { address: string; cleanup: () => void } {
  const name = `devflow-report-${randomBytes(12).toString("hex")}`;
  if (process.platform === "linux") return { address: `\0${name}`, cleanup: () => {} };
  // Windows listens on named pipes only (no socket files).
  if (process.platform === "win32") return { address: `\\\\.\\pipe\\${name}`, cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), "devflow-report-"));
  return { address: join(dir, "s"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function listen(server: Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(address, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
