/**
 * The comment and string views the loader readings match against (review, stop 32): a `//` or `#`
 * inside a string hid the code after it, and words in comments and strings counted as loaders.
 */
import { describe, expect, it } from "vitest";
import { jsSourceViews, pythonSourceViews } from "./source-text.js";

describe("jsSourceViews", () => {
  it("drops comments, keeps or empties strings, and reads a // inside a string as string", () => {
    const text = [
      'const u = "a //b"; eval(x); // eval in a comment',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a JS file that uses a template literal
      "/* module.require */ const t = `x ${y} // z`;",
      "const q = 'it\\'s'; f(q);",
      'const cut = "unterminated',
      "g();",
    ].join("\n");
    const { withoutComments, codeOnly } = jsSourceViews(text);
    expect(withoutComments).toBe(
      [
        'const u = "a //b"; eval(x);  ',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a JS file that uses a template literal
        "  const t = `x ${y} // z`;",
        "const q = 'it\\'s'; f(q);",
        'const cut = "unterminated',
        "g();",
      ].join("\n"),
    );
    expect(codeOnly).toBe(
      [
        'const u = ""; eval(x);  ',
        "  const t = `` y ;",
        "const q = ''; f(q);",
        'const cut = ""',
        "g();",
      ].join("\n"),
    );
  });

  it("reads a division as code and a regex literal as a literal", () => {
    expect(jsSourceViews("const r = a / b; const s = /x+/g;").codeOnly).toBe(
      "const r = a / b; const s = /r/;",
    );
    expect(jsSourceViews("const n = (a) / 2 / c[1] / d.e;").codeOnly).toBe("const n = (a) / 2 / c[1] / d.e;");
  });

  // Review (stop 32): a regex literal holding `/*`, a backtick or a quote read as a comment or a
  // string hid the loader after it; a loader inside a template's `${…}` was read as string.
  it.each([
    ['__dirname.replace(/\\/*$/, ""); eval(x);', "eval(x)"],
    ['s.replace(/`/g, "\'"); require.call(null, f);', "require.call(null, f)"],
    ["files.filter((f) => /^[^.'].*\\.test\\.js$/.test(f)).forEach((f) => m.addFile(f));", "m.addFile(f)"],
    ['if (x) return /[/"]/.test(y) && eval(z);', "eval(z)"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a JS file that uses a template literal
    ['const t = `${eval("require")(f)} done`;', "eval("],
  ])("keeps the code after or inside %s", (text, kept) => {
    expect(jsSourceViews(text).codeOnly).toContain(kept);
  });
});

describe("pythonSourceViews", () => {
  it("drops comments, keeps or empties strings of every quoting, and reads a # inside a string as string", () => {
    const text = [
      'tag = "#"; importlib.import_module(n)  # a comment',
      '"""A docstring with # and "quotes" and exec."""',
      "path = r'C:\\dir'; s = 'it\\'s'",
      "x = f'{a}' + b\"\"",
    ].join("\n");
    const { withoutComments, codeOnly } = pythonSourceViews(text);
    expect(withoutComments).toBe(
      [
        'tag = "#"; importlib.import_module(n)   ',
        '"""A docstring with # and "quotes" and exec."""',
        "path = r'C:\\dir'; s = 'it\\'s'",
        "x = f'{a}' + b\"\"",
      ].join("\n"),
    );
    expect(codeOnly).toBe(
      ['tag = ""; importlib.import_module(n)   ', '""', "path = r''; s = ''", "x = f'' + b\"\""].join("\n"),
    );
  });
});
