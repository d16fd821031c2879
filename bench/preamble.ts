/**
 * What every `npm run bench` part starts with. Import it first: evaluating it installs the process
 * counter (bench/process-counter.ts) before any module that spawns is loaded. Then the run count
 * (`BENCH_RUNS`), the median the parts report, and the header line naming the machine's load
 * (the machine is shared: the numbers grow on a busy one, ratios stay steady).
 */
import { loadavg } from "node:os";
import { installProcessCounter } from "./process-counter.js";

installProcessCounter();

export const RUNS = Number(process.env.BENCH_RUNS ?? 3);

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** `devflow <name> benchmark: node …, <setting>load average … (<advice>)`, printed once. */
export function printBenchHeader(name: string, setting: string, advice: string): void {
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  console.log(
    `devflow ${name} benchmark: node ${process.version}, ${setting}load average ${load} (${advice})`,
  );
}
