// devflow's reporter for `node --test`: one JSON line per test event, then an end marker.
// Node's own TAP and JUnit reporters leave out the file of a passing test (Node 20), so two
// same-named tests in different files could not be told apart; these events carry it.
// Loaded by Node from devflow's install, never from the checkout under test.
export default async function* devflowNodeTestReporter(source) {
  for await (const event of source) {
    if (event.type !== "test:start" && event.type !== "test:pass" && event.type !== "test:fail") continue;
    const data = event.data;
    yield `${JSON.stringify({
      event: event.type,
      name: data.name,
      nesting: data.nesting,
      file: data.file ?? null,
      type: data.details?.type ?? null,
      skip: data.skip !== undefined && data.skip !== false,
      todo: data.todo !== undefined && data.todo !== false,
      // The failure's own message (node wraps it as the cause of ERR_TEST_FAILURE): the seam
      // canary's nonce must appear here, so a forged failure cannot stand in for a real one.
      ...(event.type === "test:fail" ? { message: failureMessage(data.details?.error) } : {}),
    })}\n`;
  }
  yield `${JSON.stringify({ event: "devflow:end" })}\n`;
}

function failureMessage(error) {
  const cause = error?.cause ?? error;
  const message = typeof cause?.message === "string" ? cause.message : String(cause ?? "");
  return message.slice(0, 2000);
}
