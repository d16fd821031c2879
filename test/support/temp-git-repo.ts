import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import type { ToolContext } from "../../src/tools/define-tool.js";

/** A real git repository in a temp dir with the given files committed (tests only). */
export interface TempRepo {
  dir: string;
  /** A temp dir beside the repo, for things that must be "outside the worktree". */
  outside: string;
  ctx(overrides?: Partial<ToolContext>): ToolContext;
  cleanup(): Promise<void>;
}

export async function makeTempRepo(files: Record<string, string>): Promise<TempRepo> {
  const base = await mkdtemp(join(tmpdir(), "devflow-tools-"));
  const dir = join(base, "repo");
  const outside = join(base, "outside");
  await mkdir(dir);
  await mkdir(outside);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  const git = (...args: string[]) => execa("git", args, { cwd: dir });
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git(
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.com",
    "commit",
    "-q",
    "-m",
    "fixture",
    "--allow-empty",
  );
  return {
    dir,
    outside,
    ctx: (overrides = {}) => ({
      worktree: dir,
      signal: new AbortController().signal,
      written: new Set(),
      ...overrides,
    }),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
