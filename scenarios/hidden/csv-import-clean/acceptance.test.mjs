import assert from "node:assert/strict";
import { test } from "node:test";
import { importContacts } from "../src/csv-import.js";

// The whole plan (trim, duplicates, comments) on inputs none of its seams uses.
test("referee: an email with spaces or a tab around it is imported trimmed", () => {
  const { imported, rejected } = importContacts("name,email\nZed,  zed@mail.test\t\n");
  assert.deepEqual(rejected, []);
  assert.deepEqual(imported, [{ name: "Zed", email: "zed@mail.test" }]);
});

test("referee: a repeat of an email, spaced and in another case, is rejected as a duplicate", () => {
  const { imported, rejected } = importContacts(
    "name,email\nKay,kay@mail.test\nKay B, KAY@Mail.TEST \nLee,lee@mail.test\n",
  );
  assert.deepEqual(
    imported.map((c) => c.email),
    ["kay@mail.test", "lee@mail.test"],
  );
  assert.equal(rejected.length, 1);
  assert.match(rejected[0].error, /duplicate/);
});

test("referee: comment lines, indented or not, are neither imported nor rejected", () => {
  const { imported, rejected } = importContacts("name,email\n#note\n   # indented note\nLu,lu@mail.test\n");
  assert.deepEqual(rejected, []);
  assert.deepEqual(imported, [{ name: "Lu", email: "lu@mail.test" }]);
});
