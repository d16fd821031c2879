/**
 * tape's wrapper (`tape-channel-sender.cjs`) buffers the script's TAP until the script exits, then
 * sends it over devflow's report channel. It keeps one byte more than the channel takes, and takes
 * that limit from the channel's environment (`DEVFLOW_REPORT_MAX_BYTES`), so the limit has one
 * owner (report-channel.ts; until stop 51 the wrapper held its own copy of the number).
 * Real processes: the wrapper under a python that reads its children's peak memory (getrusage).
 */
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { openReportChannel } from "../../src/verify/report-channel.js";
import { TAPE_CHANNEL_SENDER } from "../../src/verify/test-reports/tape.js";

/** Runs the wrapper over `script` with `env`; says the peak memory (KiB) of the processes it waited for. */
const PEAK_OF_CHILDREN = `
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
`;

describe("tape's wrapper and the channel's limit", () => {
  it("keeps no more of a huge TAP than the channel takes, and the channel refuses it", async () => {
    const channel = await openReportChannel("tape", 1_000);
    const bytes = 300 * 1024 * 1024;
    // Not synchronous: the channel's server runs in this process and must read while the wrapper sends.
    const run = await execa(
      "/usr/bin/python3",
      ["-c", PEAK_OF_CHILDREN, process.execPath, TAPE_CHANNEL_SENDER, `head -c ${bytes} /dev/zero`],
      { env: { ...process.env, ...channel.env }, timeout: 50_000 },
    );
    const peakKiB = Number(run.stdout.trim());
    const result = await channel.close();
    expect(result).toMatchObject({ kind: "refused", tamper: false });
    // All of it kept would be 300 MiB and more; node itself needs some tens.
    expect(peakKiB).toBeGreaterThan(0);
    expect(peakKiB).toBeLessThan(150 * 1024);
  }, 60_000);
});
