/** At most `slots` jobs at once; the rest wait in order (lane runs on a small shared machine). */
export function concurrencyLimit(slots: number): <T>(job: () => Promise<T>) => Promise<T> {
  let free = slots;
  const waiting: Array<() => void> = [];
  return async (job) => {
    if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    else free -= 1;
    try {
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    }
  };
}
