/**
 * CLI start-up cost (issue 11, ADR 0042): in the same run, a bare `node -e 0`, `devflow --help` and
 * `devflow route --replay <shipped cassette>` through bin/devflow.js on the build, each as a child
 * process; wall time and the child's CPU (user + sys, from this process's reaped-children times in
 * /proc/self/stat). Targets, printed met/missed: `--help` ≤ 3× bare node (CPU), `route --replay` ≤ 1 s
 * CPU. Also the exit delay LangSmith tracing adds when its endpoint never answers (target ≤ 2 s).
 * `npm run bench` builds first; BENCH_RUNS (default 5) runs per command, medians printed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../src/util/paths.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BIN = join(PACKAGE_ROOT, "bin", "devflow.js");
const CASSETTE = join(PACKAGE_ROOT, "scenarios", "cassettes", "devin_iterate_routing.json");
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU seconds of this process's reaped children (cutime + cstime). */
function childrenCpu(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields after the command: state is [0]; cutime and cstime are fields 16 and 17 of stat(5), [13] and [14] here.
  return (Number(fields[13]) + Number(fields[14])) / TICKS;
}

interface Sample {
  wall: number;
  cpu: number;
}

function measure(args: string[], env: NodeJS.ProcessEnv = process.env): Sample {
  const cpu0 = childrenCpu();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: tmpdir(), env, encoding: "utf8" });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: childrenCpu() - cpu0 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

function series(args: string[], env?: NodeJS.ProcessEnv): Sample {
  measure(args, env); // warm the file cache
  const samples = Array.from({ length: RUNS }, () => measure(args, env));
  return { wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) };
}

/** A listener that accepts connections and never answers: the worst endpoint for a flush. */
async function blackhole(): Promise<{ url: string; close: () => void }> {
  const sockets: Socket[] = [];
  const server = createServer((s) => void sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

const fmt = (s: Sample) => `${s.wall.toFixed(2)} s wall, ${s.cpu.toFixed(2)} s CPU`;
const verdict = (ok: boolean) => (ok ? "met" : "MISSED");

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; ${RUNS} runs each, medians`,
);
const bare = series(["-e", "0"]);
const help = series([BIN, "--help"]);
const route = series([BIN, "route", "--replay", CASSETTE, "fix the csv import"]);
const hole = await blackhole();
const traced = series([BIN, "route", "--replay", CASSETTE, "fix the csv import"], {
  ...process.env,
  LANGSMITH_TRACING: "true",
  LANGSMITH_ENDPOINT: hole.url,
  LANGSMITH_API_KEY: "lsv2-bench-not-a-key",
});
hole.close();

console.log(`bare node -e 0                 ${fmt(bare)}`);
console.log(
  `devflow --help                 ${fmt(help)}  = ${(help.cpu / bare.cpu).toFixed(2)}× bare CPU, ${(help.wall / bare.wall).toFixed(2)}× bare wall (target ≤ 3× bare: ${verdict(help.cpu <= 3 * bare.cpu)})`,
);
console.log(
  `devflow route --replay         ${fmt(route)}  = ${(route.cpu / bare.cpu).toFixed(2)}× bare CPU (target ≤ 1 s CPU: ${verdict(route.cpu <= 1)})`,
);
const delay = traced.wall - route.wall;
console.log(
  `  with LangSmith tracing to an endpoint that never answers: ${fmt(traced)}, exit delay ${delay.toFixed(2)} s (target ≤ 2 s: ${verdict(delay <= 2)})`,
);
