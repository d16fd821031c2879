import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import {
  cacheDir,
  daemonConfigPath,
  dataDir,
  logsDir,
  QUEUE_STATES,
  queueDir,
} from "../home/daemon-paths.js";

/**
 * `devflow data`: the data root's tree with counts and sizes, read-only (nothing is created, not
 * even the root). One line per folder of the layout ADR 0051 fixes.
 */
export interface DataTreeNode {
  path: string;
  exists: boolean;
  files: number;
  bytes: number;
}

export interface DataTree {
  root: string;
  exists: boolean;
  config: boolean;
  nodes: { name: string; node: DataTreeNode }[];
}

export async function readDataTree(root: string): Promise<DataTree> {
  const rootExists = (await lstat(root).catch(() => null))?.isDirectory() ?? false;
  const folders: [string, string][] = [
    ...QUEUE_STATES.map((state): [string, string] => [`queue/${state}`, queueDir(root, state)]),
    ["data", dataDir(root)],
    ["cache", cacheDir(root)],
    ["logs", logsDir(root)],
  ];
  const nodes = [];
  for (const [name, path] of folders) nodes.push({ name, node: await measure(path) });
  const config = (await lstat(daemonConfigPath(root)).catch(() => null))?.isFile() ?? false;
  return { root, exists: rootExists, config, nodes };
}

export function renderDataTree(tree: DataTree): string {
  if (!tree.exists)
    return `No data root at ${tree.root} yet (devflow submit creates it; DEVFLOW_HOME moves it).\n`;
  const width = Math.max(...tree.nodes.map((n) => n.name.length));
  const lines = [
    tree.root,
    `  config.json${" ".repeat(Math.max(1, width - 9))}${tree.config ? "present" : "absent (defaults)"}`,
  ];
  for (const { name, node } of tree.nodes) {
    const what = node.exists ? `${node.files} file(s), ${formatSize(node.bytes)}` : "absent";
    lines.push(`  ${name.padEnd(width + 2)}${what}`);
  }
  return `${lines.join("\n")}\n`;
}

async function measure(path: string): Promise<DataTreeNode> {
  const node: DataTreeNode = { path, exists: false, files: 0, bytes: 0 };
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
    if (!entries) return;
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else {
        const info = await lstat(full).catch(() => null);
        node.files += 1;
        node.bytes += info?.size ?? 0;
      }
    }
  };
  if ((await lstat(path).catch(() => null))?.isDirectory()) {
    node.exists = true;
    await walk(path);
  }
  return node;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
