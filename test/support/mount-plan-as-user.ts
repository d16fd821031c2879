import { chownSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeAsUid } from "./scan-as-user.js";

/**
 * devflow's BUILT mount plan run as an ordinary uid (ADR 0068): tests run as root and drop to `uid`
 * through setpriv, with a layout that uid owns. Needs a fresh dist/.
 */
export const BUILT_PROCESS_MODULE = (name: string): string =>
  new URL(`../../dist/src/process/${name}.js`, import.meta.url).href;

export interface UserRepo {
  repo: string;
  home: string;
  checkout: string;
  deps: string;
  upper: string;
}

/**
 * A repo owned by `uid`: devflow's home with a state file, a checkout under it (tracked.txt,
 * src/a.ts, src/b.ts), node_modules, a user file, an empty overlay dir. `made` collects the top
 * dir for the caller's cleanup.
 */
export function userRepo(uid: number, made: string[]): UserRepo {
  const top = mkdtempSync(join(tmpdir(), "devflow-userns-"));
  made.push(top);
  const repo = join(top, "repo");
  const home = join(repo, ".devflow");
  const checkout = join(home, "worktrees", "t");
  const deps = join(repo, "node_modules");
  const upper = join(home, "ov");
  for (const dir of [checkout, join(checkout, "src"), deps, upper]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, "state.sqlite"), "state");
  writeFileSync(join(repo, "file.txt"), "user");
  writeFileSync(join(deps, "dep.js"), "dep");
  writeFileSync(join(checkout, "tracked.txt"), "before");
  writeFileSync(join(checkout, "src", "a.ts"), "a");
  writeFileSync(join(checkout, "src", "b.ts"), "b");
  for (const path of [top, repo, home, join(home, "worktrees"), checkout, join(checkout, "src"), deps, upper])
    chownSync(path, uid, uid);
  for (const file of [
    join(home, "state.sqlite"),
    join(repo, "file.txt"),
    join(deps, "dep.js"),
    join(checkout, "tracked.txt"),
    join(checkout, "src", "a.ts"),
    join(checkout, "src", "b.ts"),
  ])
    chownSync(file, uid, uid);
  return { repo, home, checkout, deps, upper };
}

/**
 * `body` (an async module body ending in a value) run as `uid` with devflow's built modules `mn`
 * (mount-namespace) and `rp` (run-process); its JSON result.
 */
export function asUser(uid: number, body: string, env: Record<string, string> = {}): unknown {
  const code = [
    `Object.assign(process.env, ${JSON.stringify(env)});`,
    `const mn = await import(${JSON.stringify(BUILT_PROCESS_MODULE("mount-namespace"))});`,
    `const rp = await import(${JSON.stringify(BUILT_PROCESS_MODULE("run-process"))});`,
    `const out = await (async () => { ${body} })();`,
    "console.log(JSON.stringify(out));",
  ].join("\n");
  return JSON.parse(nodeAsUid(uid, code));
}

/** A confined run of `script` as `uid` under the plan of `r` (`extra` merged into the plan). */
export function confinedRunAsUser(
  uid: number,
  r: UserRepo,
  script: string,
  extra: object = {},
  env: Record<string, string> = {},
): { output: string; mode: string | null } {
  const mounts = { readOnly: r.repo, hide: r.home, expose: r.checkout, ...extra };
  return asUser(
    uid,
    `const run = await rp.runProcess({ command: ${JSON.stringify(script)}, shell: true, cwd: ${JSON.stringify(r.checkout)},
      env: { PATH: process.env.PATH }, timeoutMs: 20000, confine: true, mounts: ${JSON.stringify(mounts)} });
     return { output: run.output, mode: mn.mountNamespaceMode() };`,
    env,
  ) as { output: string; mode: string | null };
}
