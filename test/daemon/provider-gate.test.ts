import { describe, expect, it } from "vitest";
import type { ProviderFault, ProviderFaultKind } from "../../src/daemon/provider-fault.js";
import { ProviderGate } from "../../src/daemon/provider-gate.js";

/**
 * The provider gate's state machine (ADR 0052) on a fake clock: every state, latches outrank
 * backoffs, rate limits double from Retry-After (or the base) up to the cap, and what reopens what.
 */
const SECOND = 1000;
const T0 = Date.parse("2026-12-01T12:00:00Z");

function gateOnFakeClock() {
  const clock = { t: T0 };
  const gate = new ProviderGate(
    () => ({ rateLimitBaseMs: 30 * SECOND, rateLimitMaxMs: 900 * SECOND, outageMs: 30 * SECOND }),
    () => clock.t,
  );
  return { gate, clock, advance: (ms: number) => (clock.t += ms) };
}

const fault = (kind: ProviderFaultKind, retryAfterMs: number | null = null): ProviderFault => ({
  kind,
  reason: `scripted ${kind}`,
  retryAfterMs,
  from: "code",
});

const untilOffset = (gate: ProviderGate) => {
  const until = gate.snapshot().until;
  return until === null ? null : Date.parse(until) - T0;
};

describe("the provider gate", () => {
  it("starts open", () => {
    const { gate } = gateOnFakeClock();
    expect(gate.snapshot()).toEqual({ state: "open", reason: null, until: null });
    expect(gate.isOpen()).toBe(true);
  });

  it.each(["auth_error", "quota_exhausted", "misconfig"] as const)(
    "latches %s: closed with no end time, whatever the clock does, until a successful session",
    (kind) => {
      const { gate, advance } = gateOnFakeClock();
      gate.trip(fault(kind));
      expect(gate.snapshot()).toEqual({ state: kind, reason: `scripted ${kind}`, until: null });
      advance(7 * 24 * 3600 * SECOND);
      expect(gate.isOpen()).toBe(false);
      expect(gate.opensAt()).toBeNull();
      gate.succeeded();
      expect(gate.snapshot().state).toBe("open");
    },
  );

  it("a config reload (reset) ends a latch", () => {
    const { gate } = gateOnFakeClock();
    gate.trip(fault("auth_error"));
    gate.reset();
    expect(gate.isOpen()).toBe(true);
  });

  it("outage_backoff closes for one retry interval and then opens by itself", () => {
    const { gate, advance } = gateOnFakeClock();
    gate.trip(fault("outage_backoff"));
    expect(gate.snapshot().state).toBe("outage_backoff");
    expect(untilOffset(gate)).toBe(30 * SECOND);
    advance(30 * SECOND - 1);
    expect(gate.isOpen()).toBe(false);
    advance(1);
    expect(gate.snapshot()).toEqual({ state: "open", reason: null, until: null });
  });

  it("rate_limited honours Retry-After, doubles it while rate limits come in a row, caps at the max", () => {
    const { gate, clock } = gateOnFakeClock();
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const start = clock.t;
      gate.trip(fault("rate_limited", 45 * SECOND));
      const until = Date.parse(gate.snapshot().until as string);
      waits.push((until - start) / SECOND);
      clock.t = until; // the backoff runs out, the next try is rate limited again
      expect(gate.isOpen()).toBe(true);
    }
    expect(waits).toEqual([45, 90, 180, 360, 720, 900]);
  });

  it("rate_limited without Retry-After starts at the base (30 s); a successful session ends the streak", () => {
    const { gate, clock } = gateOnFakeClock();
    gate.trip(fault("rate_limited"));
    expect(untilOffset(gate)).toBe(30 * SECOND);
    clock.t += 30 * SECOND;
    gate.trip(fault("rate_limited"));
    expect(Date.parse(gate.snapshot().until as string) - clock.t).toBe(60 * SECOND);
    gate.succeeded();
    expect(gate.isOpen()).toBe(true);
    gate.trip(fault("rate_limited"));
    expect(Date.parse(gate.snapshot().until as string) - clock.t).toBe(30 * SECOND);
  });

  it("a latch outranks a backoff: tripped during a backoff it shows, and it stays after the backoff ends", () => {
    const { gate, advance } = gateOnFakeClock();
    gate.trip(fault("rate_limited", 60 * SECOND));
    gate.trip(fault("auth_error"));
    expect(gate.snapshot()).toEqual({ state: "auth_error", reason: "scripted auth_error", until: null });
    advance(61 * SECOND);
    expect(gate.snapshot().state).toBe("auth_error");
  });

  it("a latch outranks a backoff tripped after it; once the latch is reset the still-running backoff shows", () => {
    const { gate, advance } = gateOnFakeClock();
    gate.trip(fault("misconfig"));
    gate.trip(fault("outage_backoff"));
    expect(gate.snapshot().state).toBe("misconfig");
    gate.reset();
    expect(gate.snapshot().state).toBe("outage_backoff");
    advance(30 * SECOND);
    expect(gate.isOpen()).toBe(true);
  });

  it("a later, shorter backoff never shortens a running one", () => {
    const { gate } = gateOnFakeClock();
    gate.trip(fault("rate_limited", 600 * SECOND));
    gate.trip(fault("outage_backoff"));
    expect(gate.snapshot().state).toBe("rate_limited");
    expect(untilOffset(gate)).toBe(600 * SECOND);
  });
});
