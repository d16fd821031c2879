import { existsSync, statSync } from "node:fs";

const URL_SCHEME = /^(https?|ssh|git|file|git\+ssh|ssh\+git):\/\//i;
/** scp-like syntax, `user@host:path` or `host:path`; a one-letter "host" is a Windows drive. */
const SCP_LIKE = /^(?:[\w.-]+@)?[\w.-]{2,}:(?!\/\/)[^\\]/;

/**
 * Whether `input` names a repository to clone rather than a local checkout. A path ending in
 * `.git` counts as a URL only when it is not an existing local directory.
 */
export function isGitUrl(input: string): boolean {
  const value = input.trim();
  if (value === "") return false;
  if (URL_SCHEME.test(value)) return true;
  if (isLocalDirectory(value)) return false;
  if (SCP_LIKE.test(value) && !value.startsWith("/") && !value.startsWith(".")) return true;
  return /\.git\/?$/i.test(value);
}

function isLocalDirectory(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `url` with any user/password part replaced by `***`, so tokens never reach messages or logs. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1***@");
}
