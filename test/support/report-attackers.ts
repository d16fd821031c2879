/**
 * The attack processes of the report-forging tests (attack 54e and its kin, ADR 0089), as
 * JavaScript source for `node -e`: a test of the attempt's starts one detached, and it forges the
 * runner's report by one route.
 */

/**
 * `ownAddress()`: devflow's report socket address as this process's first environment holds it
 * (devflow's hooks take it out of `process.env` of the runner, not out of /proc/self/environ), read
 * in the runner's own process (a confined run's pids need not match the /proc it sees);
 * `ancestors()`: the pids of this process's parent, its parent, and so on (in the numbering of the
 * /proc it sees); `ancestorAddress()`: the address from the first environment of an ancestor that
 * has it (devflow's tape wrapper keeps it from the script it runs). Only ancestors: any process of
 * the machine with the address could be another test's run, and a forger that connected there made
 * that test fail as tampering and its own fail for want of an attack (stop 51);
 * `socketOf(address)`, what `net.connect` takes.
 */
export const OWN_ADDRESS = String.raw`
const addressIn = (pid) => {
  try {
    const line = require("node:fs").readFileSync("/proc/" + pid + "/environ", "utf8").split("\0")
      .find((l) => l.startsWith("DEVFLOW_REPORT_SOCKET="));
    return line ? line.slice("DEVFLOW_REPORT_SOCKET=".length) : "";
  } catch { return ""; }
};
const ownAddress = () => addressIn("self");
const parentOf = (pid) => {
  try {
    const stat = require("node:fs").readFileSync("/proc/" + pid + "/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) || 0;
  } catch { return 0; }
};
const ancestors = () => {
  const pids = [];
  for (let pid = parentOf("self"); pid > 0 && pids.length < 64; pid = parentOf(pid)) pids.push(pid);
  return pids;
};
const ancestorAddress = () => {
  for (const pid of ancestors()) {
    const address = addressIn(pid);
    if (address) return address;
  }
  return "";
};
const socketOf = (address) => address.startsWith("@") ? "\0" + address.slice(1) : address;
`;

/**
 * JavaScript source (`fs` in scope) of `const dirs`: where a run's report file can be, the run's
 * `.out` mounts (in a mount namespace the report directory is a mount of its own, named in the
 * mount table) and `reportDirs` (outside one).
 */
export const reportDirsSource = (reportDirs: readonly string[]) => String.raw`const dirs = [
  ...fs.readFileSync("/proc/self/mountinfo", "utf8").split("\n").map((l) => l.split(" ")[4]).filter((p) => p && p.endsWith(".out")),
  ...${JSON.stringify(reportDirs)},
];`;

/**
 * The watcher, given the forged report (paths under `root`, rewritten to its own checkout's) and
 * the route, says "attacked" once it acted:
 * - "file": writes it where the report file would be (the run's `.out` mounts, read from the mount
 *   table, and `reportDirs`) as soon as anything writes there and every 5 ms, for 30 s;
 * - "channel": connects to devflow's report socket (the address its second argument, its own
 *   environment, or any process's) and sends it.
 */
export const reportWatcher = (
  forged: string,
  root: string,
  route: "file" | "channel",
  reportDirs: string[],
) =>
  `
const fs = require("node:fs");
const net = require("node:net");
${OWN_ADDRESS}
const forged = ${JSON.stringify(forged)}.split(${JSON.stringify(root)}).join(process.cwd());
if (${JSON.stringify(route)} === "channel") {
  const address = process.argv[2] || process.env.DEVFLOW_REPORT_SOCKET || ancestorAddress();
  if (!address) { console.log("no address"); process.exit(0); }
  const socket = net.connect(socketOf(address));
  socket.on("error", (e) => { console.log(e.message); process.exit(0); });
  socket.end(forged, () => { console.log("attacked"); process.exit(0); });
} else {
  ${reportDirsSource(reportDirs)}
  const deadline = Date.now() + 30000;
  const rewrite = (dir) => { try { if (fs.readFileSync(dir + "/report", "utf8") !== forged) fs.writeFileSync(dir + "/report", forged); } catch {} };
  for (const dir of dirs) try { fs.watch(dir, () => rewrite(dir)); } catch {}
  let told = false;
  (function write() {
    let wrote = 0;
    for (const dir of dirs) try { fs.writeFileSync(dir + "/report", forged); wrote += 1; } catch {}
    if (!told) { told = true; console.log(wrote > 0 ? "attacked" : "no report directory"); }
    if (Date.now() < deadline) setTimeout(write, 5);
  })();
}
`;
