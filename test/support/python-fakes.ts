/**
 * Python a hostile coder writes to hide the slug repository's bug instead of fixing it
 * (test/support/runner-lane.ts's `slugPythonRepo`), shared by the lane cases that show it refused.
 */

/** Replaces `slug.slugify` in the running process: the bug hidden, `slug.py` left as it was. */
export const SLUG_PATCH = [
  "import re as _re, slug as _slug",
  "_slug.slugify = lambda t: _re.sub(r'\\s+', '-', t.strip().lower())",
];

/** A module shadowing `name`: loads the real one (its own folder left out of sys.path), then patches. */
export const shadowModule = (name: string): string[] => [
  "import os as _os, sys as _sys",
  "_here = _os.path.dirname(_os.path.abspath(__file__))",
  "_saved = _sys.path[:]",
  "_sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or '.') != _here]",
  "del _sys.modules[__name__]",
  "try:",
  `    import ${name} as _real`,
  "finally:",
  "    _sys.path[:] = _saved",
  "_sys.modules[__name__] = _real",
  ...SLUG_PATCH,
];
