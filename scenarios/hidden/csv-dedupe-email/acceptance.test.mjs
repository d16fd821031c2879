import assert from "node:assert/strict";
import { test } from "node:test";
import { importContacts } from "../src/csv-import.js";

test("referee: the second and later rows with an email already seen (any case) are duplicates", () => {
  const csv = "name,email\nHal,hal@mail.test\nIda,ida@mail.test\nHal 2,HAL@Mail.Test\nIda 2,ida@mail.test\n";
  const { imported, rejected } = importContacts(csv);
  assert.deepEqual(
    imported.map((c) => c.email),
    ["hal@mail.test", "ida@mail.test"],
  );
  assert.deepEqual(
    rejected.map((r) => [r.line, r.error]),
    [
      [4, "duplicate email"],
      [5, "duplicate email"],
    ],
  );
});

test("referee: distinct emails are all imported", () => {
  const { imported, rejected } = importContacts("name,email\nJo,jo@mail.test\nKim,kim@mail.test\n");
  assert.deepEqual(rejected, []);
  assert.equal(imported.length, 2);
});
