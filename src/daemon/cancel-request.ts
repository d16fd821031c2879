import { readFile, unlink } from "node:fs/promises";
import { hostname, userInfo } from "node:os";
import { type CancelRequest, CancelRequest as CancelRequestSchema } from "../artifacts/schemas/ticket.js";
import { cancelRequestPath, queueTmpDir } from "../home/daemon-paths.js";
import { linkNew } from "./link-new.js";

/**
 * `devflow cancel` of a running ticket (ADR 0056): the command never signals the daemon's pid (it
 * may be on another host, or a pid reused since); it leaves a request beside the claim, which the
 * daemon holding the ticket reads at its heartbeat and then stops the run through its abort path.
 * Created with link(2): the first request stands, a second cancel finds it and says so.
 */
export async function requestCancel(
  root: string,
  id: string,
  now = new Date(),
): Promise<{ request: CancelRequest; first: boolean }> {
  const request: CancelRequest = { id, by: whoAmI(), requested_at: now.toISOString() };
  const first = await linkNew(
    queueTmpDir(root),
    cancelRequestPath(root, id),
    `${JSON.stringify(request, null, 2)}\n`,
  );
  if (first) return { request, first };
  return { request: (await readCancelRequest(root, id)) ?? request, first };
}

/** The pending cancel request of a ticket, or null (none, or a torn or foreign file: no request). */
export async function readCancelRequest(root: string, id: string): Promise<CancelRequest | null> {
  try {
    const parsed = CancelRequestSchema.safeParse(
      JSON.parse(await readFile(cancelRequestPath(root, id), "utf8")),
    );
    return parsed.success && parsed.data.id === id ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Removed once the ticket left processing/ (cancelled or finished anyway). */
export async function clearCancelRequest(root: string, id: string): Promise<void> {
  await unlink(cancelRequestPath(root, id)).catch(() => undefined);
}

function whoAmI(): string {
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (a container): the host and pid still say who
  }
  return `${user}@${hostname()} (pid ${process.pid})`;
}
