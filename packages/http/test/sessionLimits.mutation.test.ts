/**
 * The session registry and client keys as pure functions, for what sessionLimits.test.ts leaves open (each case
 * kills mutants that survived `pnpm mutation`, see docs/mutation.md): the default per-client bound, the 429's
 * message, activity ordering a client's own sessions, sessions of no known client, and malformed or unusual
 * addresses.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SessionLimits from "../src/internal/sessionLimits.js"

interface Fake extends SessionLimits.Member {
  readonly name: string
  busy: boolean
}

const fake = (name: string, client: string | undefined): Fake => ({
  name,
  client,
  busy: false,
  idle() {
    return !this.busy
  }
})

const evicted = (admission: SessionLimits.Admission<Fake>) =>
  admission._tag === "Admitted" ? admission.evicted.map((m) => m.name) : admission

describe("SessionLimits registry", () => {
  it("the default per-client bound is 1,000, or the server's bound when smaller, and at least 1", () => {
    expect(SessionLimits.defaultPerClient(10_000)).toBe(1_000)
    expect(SessionLimits.defaultPerClient(1_000)).toBe(1_000)
    expect(SessionLimits.defaultPerClient(10)).toBe(10)
    expect(SessionLimits.defaultPerClient(0)).toBe(1)
  })

  it("a client over its bound is told to end a session, in those words", () => {
    const limits = SessionLimits.make<Fake>({ maxSessions: 10, maxSessionsPerClient: 1 })
    const busy = fake("x1", "x")
    busy.busy = true
    limits.admit(busy)
    expect(limits.admit(fake("x2", "x"))).toEqual({
      _tag: "Refused",
      status: 429,
      message: "Too many sessions for this client: end one (DELETE) before opening another"
    })
  })

  it("activity orders a client's own sessions too: its least recently active idle one makes room", () => {
    const limits = SessionLimits.make<Fake>({ maxSessions: 10, maxSessionsPerClient: 2 })
    const [x1, x2] = [fake("x1", "x"), fake("x2", "x")]
    limits.admit(x1)
    limits.admit(x2)
    limits.touch(x1)
    expect(evicted(limits.admit(fake("x3", "x")))).toEqual(["x2"])
  })

  it("a session of no known client can be touched and removed, and has no bound of its own, even a bound of 0", () => {
    const limits = SessionLimits.make<Fake>({ maxSessions: 3, maxSessionsPerClient: 0 })
    const [u1, u2] = [fake("u1", undefined), fake("u2", undefined)]
    expect(evicted(limits.admit(u1))).toEqual([])
    expect(evicted(limits.admit(u2))).toEqual([])
    expect(limits.admit(fake("x1", "x"))).toMatchObject({ _tag: "Refused", status: 429 })
    limits.touch(u1)
    expect(evicted(limits.admit(fake("u3", undefined)))).toEqual([])
    expect(evicted(limits.admit(fake("u4", undefined)))).toEqual(["u2"])
    limits.remove(u1)
    limits.remove(u1)
    expect(limits.size()).toBe(2)
    expect(limits.sizeOf("nobody")).toBe(0)
  })

  it("touching or removing a session that has gone does nothing", () => {
    const limits = SessionLimits.make<Fake>({ maxSessions: 10, maxSessionsPerClient: 10 })
    const [x1, x2] = [fake("x1", "x"), fake("x2", "x")]
    limits.admit(x1)
    limits.admit(x2)
    limits.remove(x1)
    limits.touch(x1)
    limits.remove(x1)
    expect([limits.size(), limits.sizeOf("x")]).toEqual([1, 1])
    limits.remove(x2)
    expect([limits.size(), limits.sizeOf("x")]).toEqual([0, 0])
  })
})

describe("SessionLimits.addressKey", () => {
  it("IPv6 by its /64, with :: expanded wherever it stands", () => {
    expect(SessionLimits.addressKey("::2")).toBe("0:0:0:0::/64")
    expect(SessionLimits.addressKey("1::2:3:4:5:6:7")).toBe("1:0:2:3::/64")
    expect(SessionLimits.addressKey("1::3:4:5:6:7:8")).toBe("1:0:3:4::/64")
    expect(SessionLimits.addressKey("1:2:3:4:5:6:7:8")).toBe("1:2:3:4::/64")
    expect(SessionLimits.addressKey("A:B:C:D::")).toBe("a:b:c:d::/64")
  })

  it("IPv4-mapped IPv6 as its IPv4 address, in every spelling", () => {
    expect(SessionLimits.addressKey("::ffff:10.20.30.40")).toBe("10.20.30.40")
    expect(SessionLimits.addressKey("0:0:0:0:0:ffff:1.2.3.4")).toBe("1.2.3.4")
    expect(SessionLimits.addressKey("::FFFF:1.2.3.4")).toBe("1.2.3.4")
  })

  it("anything that is no address is its own key (lower case)", () => {
    for (
      const address of [
        "1:2:3",
        "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7:8::",
        "1::2::3",
        "1:2:3:4:5:6:7:8::x::y",
        "zz::1",
        "x1::1",
        "12345::1",
        "1:2::ffff:1.2.3.4",
        "::ffff:1.2.3.4.5",
        "Host.Example"
      ]
    ) {
      expect(SessionLimits.addressKey(address), address).toBe(address.toLowerCase())
    }
  })
})
