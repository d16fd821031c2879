import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deliverReport, openReportChannel, REPORT_SOCKET_ENV, type ReportChannel } from "./report-channel.js";

/** A client as the reporter or a forger is: connects to the channel's address from the environment. */
function send(channel: ReportChannel, text: string): Promise<void> {
  const address = channel.env[REPORT_SOCKET_ENV] ?? "";
  const socket = connect(address.startsWith("@") ? `\0${address.slice(1)}` : address);
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.once("connect", () => socket.end(text, () => resolve()));
  });
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const reportPath = () => {
  const dir = mkdtempSync(join(tmpdir(), "report-channel-"));
  dirs.push(dir);
  return join(dir, "report");
};

describe("the report channel (ADR 0089)", () => {
  it("takes the one connection's bytes as the report", async () => {
    const channel = await openReportChannel("jest");
    await send(channel, '{"numTotalTests":0}');
    expect(await channel.close()).toEqual({ kind: "report", text: '{"numTotalTests":0}' });
  });

  it("refuses a second connection, whichever came first", async () => {
    const channel = await openReportChannel("jest");
    await send(channel, "forged");
    await send(channel, "real");
    const result = await channel.close();
    expect(result).toMatchObject({ kind: "refused", tamper: true });
    expect(result.kind === "refused" && result.reason).toContain(
      "2 connections reached devflow's report channel",
    );
  });

  // A process of the run that connects as the run ends (attack 55 against tape, stop 50): its
  // connection waits in the listen queue, and closing the server at once dropped it uncounted.
  // Mutation: close() without its pass through the event loop: the forger is not counted.
  it("counts a connection still waiting to be accepted when the run ended", async () => {
    const channel = await openReportChannel("tape");
    await send(channel, "real");
    const address = channel.env[REPORT_SOCKET_ENV] ?? "";
    const late = connect(address.startsWith("@") ? `\0${address.slice(1)}` : address);
    late.on("error", () => {});
    const result = await channel.close();
    late.destroy();
    expect(result).toMatchObject({ kind: "refused", tamper: true });
  });

  it("says nothing came when nobody connected", async () => {
    const channel = await openReportChannel("jest");
    expect(await channel.close()).toEqual({ kind: "none" });
  });

  // A reporter killed mid-report closes its socket as an ended one does (a Unix socket has no reset):
  // its half a JSON document is refused by the report's parser, not here.
  it("refuses a report past the size limit", async () => {
    const big = await openReportChannel("jest", 10);
    await send(big, "x".repeat(100)).catch(() => {});
    expect(await big.close()).toMatchObject({
      kind: "refused",
      tamper: false,
      reason: "the jest report passed 10 bytes",
    });
  });

  it("puts the report where the runner's would be, over whatever the run left there; nothing when none came", async () => {
    const path = reportPath();
    const channel = await openReportChannel("jest");
    writeFileSync(path, "left by the run");
    await send(channel, "sent by the reporter");
    expect(await deliverReport(channel, path)).toBeNull();
    expect(readFileSync(path, "utf8")).toBe("sent by the reporter");
    const silent = await openReportChannel("jest");
    writeFileSync(path, "left by the run");
    expect(await deliverReport(silent, path)).toBeNull();
    expect(() => readFileSync(path)).toThrow(/ENOENT/);
  });

  // Pinned (review 56): `close` awaited the server's close, which waits for every connection, so
  // a process holding one open held devflow for as long as it lived; the wait is bounded now.
  it("a connection held open does not hold devflow: it is cut after the wait and refused", async () => {
    const channel = await openReportChannel("jest", 1024, 200);
    const address = channel.env[REPORT_SOCKET_ENV] ?? "";
    const held = connect(address.startsWith("@") ? `\0${address.slice(1)}` : address);
    await new Promise((resolve) => held.once("connect", resolve));
    held.write("{");
    held.on("error", () => {});
    const started = Date.now();
    const result = await channel.close();
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result).toMatchObject({ kind: "refused", tamper: false });
    held.destroy();
  });

  it("no longer listens once closed", async () => {
    const channel = await openReportChannel("jest");
    await channel.close();
    await expect(send(channel, "late")).rejects.toThrow(/ECONNREFUSED/);
  });
});
