import { execFile } from "node:child_process";
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * What git's stat check keeps in a reused checkout although a fresh checkout would not have it
 * (coder-checkout-reuse.ts): a file with more than one link (writing it writes another name), a
 * special file, or a file or directory with mode bits a checkout never gives (setuid/setgid/sticky,
 * bits the umask takes away, the owner unable to read or write, or a directory the owner cannot
 * enter). Such an entry made before devflow's last snapshot has that snapshot's ctime, so the
 * reset's stat check alone passes it; it must be found by a walk of its own.
 *
 * Paths relative to `dir`, top-level `.git` excluded, symlinks never followed (a link is git's to
 * judge: it is tracked by its target), a directory listed instead of anything inside it.
 */
export async function entriesStatCannotSee(dir: string): Promise<string[]> {
  // One `find` walks in C: ~30 ms for 20,000 files where the lstat walk in JS takes 50-90 ms (issue
  // 11, the biggest single step of a reused checkout's setup). Any doubt about its answer (not GNU
  // find, an error, a read it could not make) and the JS walk answers instead: same rule, slower.
  if (!findUsable) return entriesByWalk(dir);
  const found = await entriesByFind(dir);
  if (found !== null) return found;
  // Throws when the directory itself cannot be walked (gone, unreadable): then find was not at
  // fault and stays in use; when the walk answers, find is (not GNU find) and is not asked again.
  const walked = entriesByWalk(dir);
  findUsable = false;
  return walked;
}

/** Cleared once `find` failed where the JS walk did not (no GNU find: BSD's has no `-perm /mode`). */
let findUsable = true;

/** The mode bits a checkout never gives: setuid/setgid/sticky and those the umask takes away. */
function extraModeBits(): number {
  const allowed = 0o777 & ~process.umask();
  return 0o7777 & ~allowed;
}

/** The rule, walked in JS (lstat of every entry): the reference `find` must agree with. */
export function entriesByWalk(dir: string, prefix = ""): string[] {
  const extraBits = extraModeBits();
  const out: string[] = [];
  for (const name of readdirSync(join(dir, prefix))) {
    if (prefix === "" && name === ".git") continue;
    const rel = prefix === "" ? name : `${prefix}/${name}`;
    const st = lstatSync(join(dir, rel));
    const extra = (st.mode & 0o7777 & extraBits) !== 0;
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) {
      if (extra || (st.mode & 0o700) !== 0o700) out.push(rel);
      else out.push(...entriesByWalk(dir, rel));
    } else if (!st.isFile() || st.nlink > 1 || extra || (st.mode & 0o600) !== 0o600) out.push(rel);
  }
  return out;
}

/**
 * The same rule as one GNU `find` expression; null when find is missing, is not GNU find, or
 * reports any error (an unreadable directory: the JS walk then fails too, and the reuse with it).
 */
export function entriesByFind(dir: string): Promise<string[] | null> {
  const extra = `/${extraModeBits().toString(8)}`;
  const args = [
    ".",
    "-mindepth",
    "1",
    "(",
    "-path",
    "./.git",
    "-prune",
    ")",
    "-o",
    "(",
    "-type",
    "d",
    "(",
    "-perm",
    extra,
    "-o",
    "!",
    "-perm",
    "-700",
    ")",
    "-print0",
    "-prune",
    ")",
    "-o",
    "(",
    "!",
    "-type",
    "d",
    "!",
    "-type",
    "l",
    "(",
    "!",
    "-type",
    "f",
    "-o",
    "-links",
    "+1",
    "-o",
    "-perm",
    extra,
    "-o",
    "!",
    "-perm",
    "-600",
    ")",
    "-print0",
    ")",
  ];
  return new Promise((resolve) => {
    execFile(
      "find",
      args,
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
        encoding: "buffer",
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error || stderr.length > 0) return resolve(null);
        const text = stdout.toString("utf8");
        // A name that is not UTF-8 would come back as another name (one rmSync cannot find): the JS
        // walk then meets it too, its lstat fails, and the reuse is given up (fail closed).
        if (!Buffer.from(text, "utf8").equals(stdout)) return resolve(null);
        resolve(
          text
            .split("\0")
            .filter((entry) => entry !== "")
            .map((entry) => entry.slice(2)),
        );
      },
    );
  });
}
