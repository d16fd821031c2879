/**
 * For devflow-process.test.ts: a test process that starts two detached process groups, registers
 * both with the group reaper, forgets the second (as when its test ended it), prints both pgids and
 * waits to be SIGKILLed (no exit handler of ours runs then).
 */
import { spawn } from "node:child_process";
import { forgetReaped, reapOnExit } from "./group-reaper.js";

const group = () => {
  const child = spawn("/bin/sh", ["-c", "sleep 300 & wait"], { detached: true, stdio: "ignore" });
  child.unref();
  return child.pid as number;
};
const reaped = group();
const forgotten = group();
reapOnExit(reaped);
reapOnExit(forgotten);
forgetReaped(forgotten);
process.stdout.write(`${reaped} ${forgotten}\n`);
setInterval(() => {}, 1000);
