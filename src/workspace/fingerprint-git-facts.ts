import { type GitOptions, gitFailure, gitOutputAndExit, runGit } from "./git.js";

/**
 * The git facts of the user-repository fingerprint that used to take one git process each, read in
 * fewer (issue 11, ADR 0050 third slice). Each answer is the same as the separate commands gave;
 * `fingerprint-git-facts.test.ts` pins that on the inputs that could tell them apart.
 */

/**
 * The common git dir and HEAD's commit from one `git rev-parse --git-common-dir -q --verify
 * HEAD^{commit}` (was `rev-parse --git-common-dir` + `rev-parse -q --verify HEAD^{commit}`).
 * rev-parse prints the common dir first, then the commit; when HEAD names no commit (unborn, or
 * a ref to a tree) it exits 1 after printing only the common dir, which is `commit: null` as the
 * old `.catch(() => "")` made it. No common dir printed (not a repository) is an error, as before.
 */
export async function commonDirAndHeadCommit(
  repoRoot: string,
  options: GitOptions,
): Promise<{ commonDir: string; commit: string | null }> {
  const args = ["rev-parse", "--git-common-dir", "-q", "--verify", "HEAD^{commit}"];
  const { exitCode, stdout, stderr } = await gitOutputAndExit(repoRoot, args, options);
  const text = stdout.endsWith("\n") ? stdout.slice(0, -1) : stdout;
  if (exitCode === 0) {
    const split = text.lastIndexOf("\n");
    if (split >= 0)
      return { commonDir: text.slice(0, split).trim(), commit: text.slice(split + 1).trim() || null };
  } else if (text.trim() !== "") {
    return { commonDir: text.trim(), commit: null };
  }
  throw gitFailure(repoRoot, args, new Error(`${stderr}${stdout}`.trim() || `exit code ${exitCode}`));
}

/**
 * The tracked and untracked-not-ignored names (what `ls-files -z --cached --others
 * --exclude-standard` lists, in its order) and the index entries with their flags (the exact
 * bytes of `ls-files -s -v -z`) from one `ls-files -z -s -v --cached --others --exclude-standard`.
 * In that listing every untracked name comes as `? <name>` and every index entry as
 * `<tag> <mode> <object> <stage>\t<name>`: the tag is a single letter, so a record starting with
 * `? ` is always an untracked name, and the name of an index entry is everything after its first
 * tab (mode, object and stage hold none), whatever the name itself contains.
 */
export async function trackedUntrackedAndIndex(
  repoRoot: string,
  options: GitOptions,
): Promise<{ names: string[]; indexEntries: string }> {
  const args = ["ls-files", "-z", "-s", "-v", "--cached", "--others", "--exclude-standard"];
  const split = splitIndexListing(await runGit(repoRoot, args, options));
  if (split === null)
    throw gitFailure(repoRoot, args, new Error("a record is neither `? <name>` nor an index entry"));
  return split;
}

/** Splits the combined listing (see trackedUntrackedAndIndex); null when a record has neither form. */
export function splitIndexListing(listing: string): { names: string[]; indexEntries: string } | null {
  const names: string[] = [];
  let indexEntries = "";
  for (const record of listing.split("\0")) {
    if (record === "") continue;
    if (record.startsWith("? ")) {
      names.push(record.slice(2));
      continue;
    }
    const tab = record.indexOf("\t");
    if (tab < 0) return null;
    names.push(record.slice(tab + 1));
    indexEntries += `${record}\0`;
  }
  return { names, indexEntries };
}

/**
 * The `git status --porcelain=v2 --ignored -z` records and the ref HEAD points to (what
 * `symbolic-ref -q HEAD` prints, null when detached) from one `status --branch` (issue 11, stop
 * 32: they were two processes). status names HEAD's branch without `refs/heads/` in its
 * `# branch.head` header; when HEAD points elsewhere it prints a parenthesised word instead
 * (`(detached)`, or `(null)` for a ref outside `refs/heads/`), which is also what a branch of that
 * very name would print: such an answer is asked of `symbolic-ref` separately, as before. Header
 * records (`# …`) are not status records. `--no-ahead-behind`: no walk to an upstream.
 */
export async function statusAndHeadRef(
  repoRoot: string,
  options: GitOptions,
): Promise<{ status: string[]; symbolic: string | null }> {
  const out = await runGit(
    repoRoot,
    ["status", "--porcelain=v2", "--branch", "--no-ahead-behind", "--ignored", "-z"],
    options,
  );
  const status: string[] = [];
  let head: string | null = null;
  for (const record of out.split("\0")) {
    if (record === "") continue;
    if (record.startsWith("# ")) {
      if (record.startsWith("# branch.head ")) head = record.slice("# branch.head ".length);
      continue;
    }
    status.push(record);
  }
  if (head !== null && head !== "" && !head.startsWith("("))
    return { status, symbolic: `refs/heads/${head}` };
  const symbolic = (await runGit(repoRoot, ["symbolic-ref", "-q", "HEAD"], options).catch(() => "")).trim();
  return { status, symbolic: symbolic || null };
}
