import { chmodSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

/**
 * An executable `name` (its text `text`, a `#!` script) in a temp folder put first on PATH for the
 * rest of the test; `onTestFinished` puts PATH back and removes the folder. For the package
 * managers this machine does not have (pnpm, yarn): stubs honouring their documented contract.
 */
export async function stubFirstOnPath(
  name: string,
  text: string,
  onTestFinished: (fn: () => Promise<void>) => void,
): Promise<void> {
  const bin = await mkdtemp(join(tmpdir(), `devflow-${name}-stub-`));
  writeFileSync(join(bin, name), text);
  chmodSync(join(bin, name), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${bin}${delimiter}${path}`;
  onTestFinished(async () => {
    process.env.PATH = path;
    await rm(bin, { recursive: true, force: true });
  });
}
