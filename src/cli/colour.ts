import pc from "picocolors";

export type Palette = ReturnType<typeof pc.createColors>;

/**
 * Whether stderr gets colour (issue 11): off with `--no-color`, with `NO_COLOR` set to any
 * non-empty value (no-color.org) and with `FORCE_COLOR=0`; on with any other `FORCE_COLOR`; else on
 * exactly when stderr is a terminal. A request to turn colour off beats one to force it, as in
 * picocolors. --json output is never coloured: its sink does not use a palette at all.
 */
export function colourWanted(opts: {
  flag: boolean | undefined;
  env: Readonly<Record<string, string | undefined>>;
  isTTY: boolean;
}): boolean {
  if (opts.flag === false) return false;
  if (opts.env.NO_COLOR) return false;
  const force = opts.env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  return opts.isTTY;
}

/** picocolors' functions, either colouring or the identity (so callers never branch on colour). */
export function palette(enabled: boolean): Palette {
  return pc.createColors(enabled);
}
