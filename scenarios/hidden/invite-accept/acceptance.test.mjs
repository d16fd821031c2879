import assert from "node:assert/strict";
import { test } from "node:test";
import { handleRequest } from "../src/api.js";
import { sampleStore } from "../src/invite-store.js";

const accept = (token) => ({ method: "POST", path: "/api/invites/accept", body: { token } });

test("referee: accepting a valid invite answers 200 and persists the acceptance time", () => {
  const now = new Date("2031-05-06T07:08:09.000Z");
  const store = sampleStore(now);
  const response = handleRequest(accept("valid-token"), store, now);
  assert.equal(response.status, 200);
  assert.equal(response.body.invite.status, "accepted");
  assert.equal(response.body.invite.accepted_at, now.toISOString());
  const saved = store.find("valid-token");
  assert.equal(saved.status, "accepted");
  assert.equal(saved.accepted_at, now.toISOString());
});

test("referee: a second acceptance is a 409 and an expired invite stays a 410", () => {
  const now = new Date("2031-05-06T07:08:09.000Z");
  const store = sampleStore(now);
  handleRequest(accept("valid-token"), store, now);
  assert.equal(handleRequest(accept("valid-token"), store, now).status, 409);
  assert.equal(handleRequest(accept("old-token"), store, now).status, 410);
});
