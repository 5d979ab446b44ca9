/**
 * Fuzz over Streamable HTTP from the schemas, into a real server child (`examples/everything --http` on
 * 127.0.0.1): for every revision (a session for each handshake revision, stateless POSTs with matching headers for
 * 2026-07-28), each client→server request with valid params (generated from the revision's own schema, naming the
 * server's real tools, prompts and resources), then one value anywhere in it (any field at any depth, `_meta`,
 * `_meta.progressToken`, the id, `params` itself, the method) replaced by a hostile one: nested up to 10,000 deep,
 * strings up to 1 MB, wide, or of the wrong type. The rule (issue 28): each POST gets no 5xx and exactly one answer,
 * with its request's id (id null only when the id cannot be read), an error code among -32700/-32600/-32601/-32602
 * (or a result), never -32603, with a bounded message and data; afterwards each id is free again in its session (a
 * ping with it succeeds) and a well-formed call succeeds. A POST may also get -32020 where the change makes the
 * body contradict its headers (the revision in `_meta`; statelessly also the method, the name or URI).
 *
 * The seed is printed; `EFFECT_MCP_FUZZ_SEED` replays it and `EFFECT_MCP_FUZZ_SCHEMA_FRAMES` sets the POSTs per
 * revision (default 150). Left out: `subscriptions/listen` (a stream that stays open) and `test_reconnection` (it
 * closes its stream on purpose). Run by the `http` project only (the server is a child whatever the adapter).
 */
import { Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import * as Frames from "../../schema/test/fuzz/frames.js"
import * as H from "../../schema/test/fuzz/hostile.js"
import * as Wire from "../src/internal/wire.js"
import { adapter } from "./helpers.js"

const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))
const SCHEMA_FRAMES = H.frameCount(150)
const IN_FLIGHT = 4
const seed = H.seed("http/fuzz")
const replay = `(seed ${seed}: EFFECT_MCP_FUZZ_SEED=${seed} to replay)`

const baseHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" }

const request = (id: string | number, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

/** What came back for one POST. */
interface Answer {
  readonly status: number
  /** The JSON-RPC responses in it (notifications left out). */
  readonly messages: ReadonlyArray<Record<string, unknown>>
}

const post = async (url: string, headers: Record<string, string>, body: string): Promise<Answer> => {
  // A bound, not a wait: a POST that is never answered fails here with its frame, not at the test's timeout.
  const response = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(30_000) })
  const text = await response.text()
  const type = response.headers.get("content-type") ?? ""
  const all: Array<Record<string, unknown>> = type.includes("application/json")
    ? [JSON.parse(text)].flat()
    : type.includes("text/event-stream")
    ? text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6).map((l) => JSON.parse(l.slice(6)))
    : []
  return { status: response.status, messages: all.filter((m) => typeof m.method !== "string") }
}

/** The headers a stateless request needs, from its params as they were before the change. */
const statelessHeaders = (frame: Frames.RequestFrame): Record<string, string> => {
  const field = Wire.namedMethods[frame.method]
  const params = (frame.params ?? {}) as Record<string, unknown>
  return {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": frame.method,
    ...(field === undefined ? {} : { "mcp-name": Wire.encodeHeaderValue(String(params[field])) })
  }
}

/**
 * Changes that make a body contradict its headers, so that -32020 is a right answer: the revision named in `_meta`
 * (against `MCP-Protocol-Version`, in a session too), and statelessly the method, the name or URI (`Mcp-Method`,
 * `Mcp-Name`) or what holds them.
 */
const contradictsHeaders = (frame: Frames.RequestFrame, stateless: boolean) =>
  frame.path.includes(Frames.metaKeys.protocolVersion) ||
  (stateless && /^(method|params|params\._meta|params\.name|params\.uri)$/.test(frame.path))

const start = () => {
  const child = spawn(process.execPath, [everything, "--http"], { stdio: ["ignore", "pipe", "pipe"] })
  let stderr = ""
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (c: string) => void (stderr = (stderr + c).slice(-4000)))
  const url = new Promise<string>((ok, ko) => {
    const lines = createInterface({ input: child.stdout })
    lines.on("line", (line) => line.startsWith("LISTENING ") && ok(line.slice("LISTENING ".length)))
    child.on("exit", (code) => ko(new Error(`the server exited with ${code}`)))
  })
  return { child, url, stderr: () => stderr }
}

// The server is a child process whatever the adapter: the http-platform and http-web projects would only run it again.
describe.skipIf(adapter !== "node")("schema-driven fuzz over Streamable HTTP", () => {
  it(
    "hostile values anywhere in every request of every revision: one bounded answer each, no 5xx, ids freed",
    async () => {
      const server = start()
      try {
        const url = await server.url
        /** The headers of a session of `revision` (opened here). */
        const open = async (revision: Revision.Revision) => {
          const response = await fetch(url, {
            method: "POST",
            headers: baseHeaders,
            body: request(0, "initialize", {
              protocolVersion: revision,
              capabilities: {},
              clientInfo: { name: "fuzz", version: "0" }
            })
          })
          await response.text()
          const session = {
            ...baseHeaders,
            "mcp-session-id": response.headers.get("mcp-session-id")!,
            "mcp-protocol-version": revision
          }
          const initialized = await post(
            url,
            session,
            JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
          )
          expect(initialized.status).toBe(202)
          return session
        }
        const sessions = new Map<Revision.Revision, Record<string, string>>()
        for (const revision of Revision.handshake) sessions.set(revision, await open(revision))
        const headersOf = (frame: Frames.RequestFrame) =>
          sessions.get(frame.revision) ?? { ...baseHeaders, ...statelessHeaders(frame) }

        // The catalogue, as a well-formed client asks for it.
        const list = async (method: string) =>
          (await post(url, sessions.get("2025-11-25")!, request(1, method))).messages[0]!.result as Record<
            string,
            unknown
          >
        const catalogue: Frames.Catalogue = {
          tools: ((await list("tools/list")).tools as Frames.Catalogue["tools"]).filter((t) =>
            t.name !== "test_reconnection" && !Frames.waitingTools.has(t.name)
          ),
          prompts: (await list("prompts/list")).prompts as Frames.Catalogue["prompts"],
          uris: [...((await list("resources/list")).resources as Array<{ uri: string }>).map((r) => r.uri)]
        }

        const frames = Revision.all.flatMap((revision, r) => {
          const methods = Frames.clientRequests(revision).filter((m) => m !== "subscriptions/listen")
          return fc.sample(Frames.requestFrames(revision, { catalogue, methods }), {
            seed: seed + r,
            numRuns: SCHEMA_FRAMES
          })
            .map((make, i) => make(1_000_000 + i))
        })
        const problems: Array<string> = []
        const check = (frame: Frames.RequestFrame, answer: Answer) => {
          const stateless = !sessions.has(frame.revision)
          const extra = contradictsHeaders(frame, stateless) ? [-32020] : []
          const wrong = answer.status === 0
            ? `no HTTP answer (${(answer as { error?: string }).error})`
            : answer.status >= 500
            ? `HTTP ${answer.status}`
            : answer.messages.length !== 1
            ? `${answer.messages.length} answers (HTTP ${answer.status})`
            : Frames.judge(frame, answer.messages[0], extra)
          if (wrong !== undefined) {
            problems.push(
              `${wrong}: ${JSON.stringify(answer.messages).slice(0, 300)}\n    frame: ${Frames.describeFrame(frame)}`
            )
          }
        }
        let next = 0
        const worker = async () => {
          while (next < frames.length && server.child.exitCode === null) {
            const frame = frames[next++]!
            const answer = await post(url, headersOf(frame), frame.text).catch((e: unknown) => ({
              status: 0,
              messages: [],
              error: String(e)
            }))
            check(frame, answer)
          }
        }
        await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
        expect(server.child.exitCode, `the server exited ${replay}\n${server.stderr()}`).toBeNull()
        expect(problems.length === 0 ? [] : [`${problems.length} problems ${replay}`, ...problems.slice(0, 5)]).toEqual(
          []
        )

        // Each id is free again in its session: a ping with it succeeds.
        const reused = frames.filter((f) => sessions.has(f.revision) && f.id !== null)
        for (const frame of reused) {
          const answer = await post(url, headersOf(frame), Frames.wellFormed(frame.revision, frame.id))
          if (answer.messages[0]?.result === undefined) {
            problems.push(
              `its id is not free: ${JSON.stringify(answer).slice(0, 300)}\n    ${Frames.describeFrame(frame)}`
            )
          }
        }
        expect(problems.length === 0 ? [] : [`${problems.length} problems ${replay}`, ...problems.slice(0, 5)]).toEqual(
          []
        )

        // And a well-formed call, in a session and statelessly.
        const text = { name: "echo", arguments: { text: "still here" } }
        const last = await post(url, sessions.get("2025-11-25")!, request("last", "tools/call", text))
        expect(last.messages[0]?.result).toMatchObject({ content: [{ type: "text", text: "still here" }] })
        const stateless = await post(
          url,
          { ...baseHeaders, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" },
          request("last", "tools/call", { ...text, _meta: Frames.meta2026 })
        )
        expect(stateless.messages[0]?.result).toMatchObject({ content: [{ type: "text", text: "still here" }] })
        expect(server.child.exitCode).toBeNull()
      } finally {
        server.child.kill("SIGTERM")
        await new Promise((ok) => (server.child.exitCode === null ? server.child.on("exit", ok) : ok(undefined)))
      }
    },
    300_000
  )
})
