import { linkNew } from "../../src/daemon/link-new.js";

/**
 * `tsx link-race.ts <dir> <tmp dir> <label> <rounds>`: tries to create `<dir>/r<N>` for every round
 * with linkNew, with 64 KiB of content naming this process; prints `r<N>` for each round it won.
 */
const [dir, tmp, label, rounds] = process.argv.slice(2);
if (!dir || !tmp || !label || !rounds) throw new Error("usage: link-race.ts <dir> <tmp> <label> <rounds>");
for (let r = 0; r < Number(rounds); r++) {
  const body = `${label}\n${"x".repeat(64 * 1024)}\n`;
  if (await linkNew(tmp, `${dir}/r${r}`, body)) process.stdout.write(`r${r}\n`);
}
