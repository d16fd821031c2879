/** Variables a child may inherit from devflow's own environment; everything else must be passed on purpose. */
const INHERITED = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "TERM",
  "TMPDIR",
  "TZ",
  // Corporate proxies and private CAs: without these, every HTTPS call of a coder CLI fails.
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
]);

const isInherited = (name: string): boolean => INHERITED.has(name) || name.startsWith("LC_");

/**
 * The environment for a child process: an allowlist of `source` (default process.env) plus
 * `extra`, which wins. API keys and tokens never leak in by accident; a backend that needs
 * one passes it in `extra`.
 */
export function baseEnv(
  extra: Readonly<Record<string, string>> = {},
  source: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && isInherited(name)) env[name] = value;
  }
  return { ...env, ...extra };
}
