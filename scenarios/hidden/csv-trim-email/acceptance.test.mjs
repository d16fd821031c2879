import assert from "node:assert/strict";
import { test } from "node:test";
import { importContacts } from "../src/csv-import.js";

test("referee: emails padded on either side, with tabs too, import trimmed and lower-cased", () => {
  const csv =
    "name,email\nCarol,\t carol@mail.test\nDan,dan@mail.test  \nErin,  ERIN@Mail.Test \t\nFay,fay@mail.test\n";
  const { imported, rejected } = importContacts(csv);
  assert.deepEqual(rejected, []);
  assert.deepEqual(
    imported.map((c) => c.email),
    ["carol@mail.test", "dan@mail.test", "erin@mail.test", "fay@mail.test"],
  );
});

test("referee: padding does not make a malformed email valid", () => {
  const { imported, rejected } = importContacts("name,email\nGus,  gus at mail.test \n");
  assert.equal(imported.length, 0);
  assert.match(rejected[0].error, /invalid email/);
});
