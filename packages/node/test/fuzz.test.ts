/**
 * Fuzz over stdio from the schemas, into a real server child (`examples/everything/dist/main.js --stdio`), for every
 * revision: each client→server request with valid params (generated from the revision's own schema, naming the
 * server's real tools, prompts and resources), then one value anywhere in it (any field at any depth, `_meta`,
 * `_meta.progressToken`, the id, `params` itself, the method) replaced by a hostile one: nested up to 10,000 deep,
 * strings up to 1 MB, wide, or of the wrong type. The rule (issue 28): each request gets exactly one answer, with
 * its own id (id null only when its id cannot be read), an error code among -32700/-32600/-32601/-32602 (or a
 * result), never -32603, with a bounded message and data; after every batch each of its ids is free again (a
 * well-formed request with it succeeds); the server keeps serving and exits 0 at EOF.
 *
 * The seed is printed; `EFFECT_MCP_FUZZ_SEED` replays it and `EFFECT_MCP_FUZZ_SCHEMA_FRAMES` sets the frames per
 * revision (default 150). `subscriptions/listen` is left out: it stays open until cancelled.
 */
import { Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { fileURLToPath } from "node:url"
import * as Frames from "../../schema/test/fuzz/frames.js"
import * as H from "../../schema/test/fuzz/hostile.js"
import { type Message, startStdioPeer, type StdioPeer } from "./fuzzPeer.js"

const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))
const SCHEMA_FRAMES = H.frameCount(150)
const BATCH = 25
const seed = H.seed("node/fuzz")

const request = (id: string | number, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

/** The server's catalogue, asked of it as a well-formed client would (so frames name real tools and prompts). */
const catalogueOf = async (peer: StdioPeer, revision: Revision.Revision): Promise<Frames.Catalogue> => {
  const meta = Revision.isStateless(revision) ? { _meta: Frames.meta2026 } : {}
  const lists = ["tools/list", "prompts/list", "resources/list"] as const
  peer.send(lists.map((method, i) => request(`list-${i}`, method, meta)))
  await peer.until(() => lists.every((_, i) => peer.byId.has(`list-${i}`)), () => "the lists")
  const [tools, prompts, resources] = lists.map((_, i) => peer.byId.get(`list-${i}`)![0]!.result as Message)
  return {
    tools: (tools!.tools as Frames.Catalogue["tools"]).filter((t) => !Frames.waitingTools.has(t.name)),
    prompts: prompts!.prompts as Frames.Catalogue["prompts"],
    uris: [...(resources!.resources as Array<{ uri: string }>).map((r) => r.uri), "test://template/1/data"]
  }
}

/**
 * What is wrong with the answers to a batch: each frame with an id has exactly two, its own (judged) and the
 * well-formed request's that reused its id (a result); the frames without one have as many answers with id null.
 */
const problems = (peer: StdioPeer, batch: ReadonlyArray<Frames.RequestFrame>, nullsBefore: number) => {
  const out: Array<string> = []
  for (const frame of batch.filter((f) => f.id !== null)) {
    const answers = peer.byId.get(frame.id) ?? []
    if (answers.length !== 2) out.push(`${answers.length} answers to it and the request that reused its id, not 2`)
    const wrong = Frames.judge(frame, answers[0])
    if (wrong !== undefined) out.push(`${wrong}: ${JSON.stringify(answers[0]).slice(0, 300)}`)
    if (answers[1]?.result === undefined) {
      out.push(`its id is not free again: ${JSON.stringify(answers[1]).slice(0, 300)}`)
    }
    if (out.length > 0) return [...out.map((p) => `${p}\n    frame: ${Frames.describeFrame(frame)}`)]
  }
  const unreadable = batch.filter((f) => f.id === null)
  const nulls = peer.nulls.slice(nullsBefore)
  if (nulls.length !== unreadable.length) {
    out.push(`${nulls.length} answers with id null for ${unreadable.length} frames`)
  }
  for (const answer of nulls) {
    const wrong = Frames.judge({ ...batch[0]!, id: null, path: "id" }, answer)
    if (wrong !== undefined) out.push(`${wrong}: ${JSON.stringify(answer).slice(0, 300)}`)
  }
  return out
}

describe("schema-driven fuzz over stdio", () => {
  Revision.all.forEach((revision, r) => {
    it(
      `${revision}: hostile values anywhere in every request get one bounded answer each, ids are freed, the server lives`,
      async () => {
        const peer = startStdioPeer([everything, "--stdio"])
        const replay = `(${revision}, seed ${seed}: EFFECT_MCP_FUZZ_SEED=${seed} to replay)`
        try {
          if (!Revision.isStateless(revision)) {
            peer.send([
              request("init", "initialize", {
                protocolVersion: revision,
                capabilities: {},
                clientInfo: { name: "fuzz", version: "0" }
              }),
              JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
            ])
            await peer.until(() => peer.byId.has("init"), () => "initialize")
          }
          const catalogue = await catalogueOf(peer, revision)
          // subscriptions/listen stays open until cancelled: not here.
          const methods = Frames.clientRequests(revision).filter((m) => m !== "subscriptions/listen")
          const makers = fc.sample(Frames.requestFrames(revision, { catalogue, methods }), {
            seed: seed + r,
            numRuns: SCHEMA_FRAMES
          })
          const frames = makers.map((make, i) => make(1_000_000 + i))
          // Every id a request of ours had: an answer with any other id answers no request.
          const asked = new Set<unknown>(["init", "list-0", "list-1", "list-2", "last"])
          const strays = () => [...peer.byId.keys()].filter((id) => !asked.has(id))
          for (let start = 0; start < frames.length; start += BATCH) {
            const batch = frames.slice(start, start + BATCH)
            for (const f of batch) asked.add(f.id)
            const nullsBefore = peer.nulls.length
            const pending = () => batch.filter((f) => f.id !== null && !peer.byId.has(f.id))
            const unreadable = batch.filter((f) => f.id === null)
            const report = () =>
              `${pending().length} unanswered ${replay}, first: ${
                pending().slice(0, 3).map(Frames.describeFrame).join("\n  ")
              }` +
              `\n${
                peer.nulls.length - nullsBefore
              } answers with id null for ${unreadable.length} frames whose id cannot ` +
              `be read:\n  ${unreadable.map(Frames.describeFrame).join("\n  ")}`
            peer.send(batch.map((f) => f.text))
            await peer.until(
              () =>
                strays().length > 0 || (pending().length === 0 && peer.nulls.length - nullsBefore >= unreadable.length),
              report
            )
            const stray = strays().map((id) => `${JSON.stringify(peer.byId.get(id)).slice(0, 300)}`)
            expect(
              stray,
              `answers with an id no request had ${replay}; the frames whose id cannot be read:\n  ${
                unreadable.map(Frames.describeFrame).join("\n  ")
              }`
            ).toEqual([])
            // Each id is free again: a well-formed request with it succeeds.
            const ids = batch.flatMap((f) => (f.id === null ? [] : [f.id]))
            peer.send(ids.map((id) => Frames.wellFormed(revision, id)))
            const once = () => batch.filter((f) => f.id !== null && peer.byId.get(f.id)!.length < 2)
            await peer.until(
              () => once().length === 0,
              () =>
                `${once().length} well-formed requests unanswered ${replay}, first with the id of: ${
                  once().slice(0, 3).map((f) =>
                    `${Frames.describeFrame(f)} answered ${JSON.stringify(peer.byId.get(f.id)).slice(0, 200)}`
                  )
                    .join("\n  ")
                }`
            )
            expect(problems(peer, batch, nullsBefore), replay).toEqual([])
          }
          const meta = Revision.isStateless(revision) ? { _meta: Frames.meta2026 } : {}
          peer.send([request("last", "tools/call", { name: "echo", arguments: { text: "still here" }, ...meta })])
          await peer.until(() => peer.byId.has("last"), () => `the last call ${replay}`)
          expect(peer.byId.get("last")?.[0]?.result).toMatchObject({ content: [{ type: "text", text: "still here" }] })
          expect(peer.garbage, replay).toEqual([])
          expect(await peer.close(), replay).toBe(0)
        } finally {
          peer.child.kill("SIGKILL")
        }
      },
      120_000
    )
  })
})
