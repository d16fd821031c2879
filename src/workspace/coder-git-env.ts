import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** The per-run global git config of a coder, in its scratch dir (never the attempt dir, ADR 0018). */
export const CODER_GITCONFIG_FILE = "coder.gitconfig";

/**
 * Git settings for a coder's environment (ADR 0020): no system config (`GIT_CONFIG_NOSYSTEM`) and
 * a per-run global config instead of the user's `~/.gitconfig` (`GIT_CONFIG_GLOBAL`), holding only
 * an identity for commits the coder makes itself and no signing. The user's credential helpers,
 * aliases, `core.sshCommand` or includes never reach the coder. The repository config it sees is
 * its own checkout's (ADR 0025), never the user's `.git/config`.
 */
export function coderGitEnv(scratchDir: string): Record<string, string> {
  const file = join(scratchDir, CODER_GITCONFIG_FILE);
  writeFileSync(
    file,
    "[user]\n\tname = devflow coder\n\temail = coder@devflow.localhost\n[commit]\n\tgpgSign = false\n[tag]\n\tgpgSign = false\n",
  );
  return { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: file };
}
