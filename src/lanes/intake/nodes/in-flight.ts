/**
 * Which lane nodes have started and not yet ended, from the lane's progress events. LangGraph
 * rejects an aborted invoke at once while the running node is still winding down (the coder's
 * process group is being terminated); the chat waits for that before it says "stopped", so a
 * stopped run really has no coder left and can be resumed at once.
 */
export class InFlightNodes {
  private readonly running = new Map<string, number>();
  private waiters: (() => void)[] = [];

  started(node: string): void {
    this.running.set(node, (this.running.get(node) ?? 0) + 1);
  }

  ended(node: string): void {
    const left = (this.running.get(node) ?? 1) - 1;
    if (left > 0) this.running.set(node, left);
    else this.running.delete(node);
    if (this.running.size === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once no node runs, or after `limitMs` (a node that ignores the abort must not hang the chat). */
  async settled(limitMs: number): Promise<boolean> {
    if (this.running.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.waiters.push(() => resolve(true)));
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), limitMs);
    });
    try {
      return await Promise.race([idle, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
