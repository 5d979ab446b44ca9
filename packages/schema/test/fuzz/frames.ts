/**
 * Hostile requests from the schemas: for a revision and each client→server request it has, a VALID params value
 * (Effect's `Arbitrary` of the revision's own params schema, encoded for that revision; its tools, prompts and
 * resources named from the server's catalogue when one is given), then one place in the whole request (any field at
 * any depth, inside arrays too, `_meta`, `_meta.progressToken`, the id, `params` itself, the method) given a hostile
 * value (see `hostile.ts`). Each frame says which id its one answer must carry, and what was changed where.
 */
import { Codec, Json, Method, Revision } from "@effect-mcp/schema"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import type * as Schema from "effect/Schema"
import * as H from "./hostile.js"

/** What a server offers, so that frames name real tools, prompts and resources (their handlers run). */
export interface Catalogue {
  readonly tools: ReadonlyArray<{ readonly name: string; readonly inputSchema?: unknown }>
  readonly prompts: ReadonlyArray<
    { readonly name: string; readonly arguments?: ReadonlyArray<{ readonly name: string }> }
  >
  readonly uris: ReadonlyArray<string>
}

/** One hostile request, as one line of JSON. */
export interface RequestFrame {
  readonly revision: Revision.Revision
  /** The method before anything was changed. */
  readonly method: string
  /** The frame (no newline in it). */
  readonly text: string
  /** The id its one answer must carry: null when the id cannot be read (then the answer is -32600 with id null). */
  readonly id: string | number | null
  /** Where the hostile value went, e.g. `params.arguments.text` (`-` when the frame is left valid). */
  readonly path: string
  /** What the hostile value is. */
  readonly value: string
  /** The params before the change (what a stateless request's headers say). */
  readonly params: unknown
}

/** The meta keys of a 2026-07-28 request. */
export const metaKeys = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities"
} as const

/** The `_meta` every 2026-07-28 request needs. */
export const meta2026 = {
  [metaKeys.protocolVersion]: "2026-07-28",
  [metaKeys.clientInfo]: { name: "fuzz", version: "0" },
  [metaKeys.clientCapabilities]: {}
}

/**
 * Tools of the everything server a fuzzer leaves out: `test_cancellable` answers only when cancelled, and
 * `test_cancellations` waits up to 5 s for a count it may never reach.
 */
export const waitingTools: ReadonlySet<string> = new Set(["test_cancellable", "test_cancellations"])

/** The client→server requests of a revision (`subscriptions/listen` stays open: callers cancel it, or leave it out). */
export const clientRequests = (revision: Revision.Revision): ReadonlyArray<string> =>
  [...Method.table.values()]
    .filter((m) => m.kind === "request" && m.from !== "server" && m.revisions.includes(revision))
    .map((m) => m.method)

const built = new Map<string, fc.Arbitrary<unknown>>()

/** Values of a type as `revision` writes them on the wire (generated from that revision's own schema; built once). */
export const wireValues = (revision: Revision.Revision, type: string): fc.Arbitrary<unknown> => {
  const key = `${revision} ${type}`
  const known = built.get(key)
  if (known !== undefined) return known
  const schema = Codec.schemaOf(revision, type) as Schema.Schema<unknown> | undefined
  if (schema === undefined) throw new Error(`${revision} has no ${type}`)
  const made = Arbitrary.make(schema)
    .map((v) => Either.getOrUndefined(Codec.encode(revision, type, v)))
    .filter((v) => v !== undefined)
    .map((v) => JSON.parse(JSON.stringify(v)) as unknown)
  built.set(key, made)
  return made
}

/** Valid arguments for a tool from its (flat) input schema; nested schemas get small JSON. */
const argumentsFor = (inputSchema: unknown): fc.Arbitrary<Record<string, unknown>> => {
  const properties = Json.isRecord(inputSchema) && Json.isRecord(inputSchema.properties) ? inputSchema.properties : {}
  const required = new Set(
    Json.isRecord(inputSchema) && Array.isArray(inputSchema.required) ? inputSchema.required : []
  )
  const valueOf = (s: unknown): fc.Arbitrary<unknown> => {
    if (!Json.isRecord(s)) return fc.jsonValue({ maxDepth: 2 })
    if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as Array<unknown>))
    switch (s.type) {
      case "string":
        return fc.string({ maxLength: 40 })
      case "integer":
        return fc.integer()
      case "number":
        return fc.double({ noNaN: true, noDefaultInfinity: true })
      case "boolean":
        return fc.boolean()
      case "array":
        return fc.array(valueOf(s.items), { maxLength: 3 })
      default:
        return fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })
    }
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [k, s] of Object.entries(properties)) record[k] = valueOf(s)
  return fc.record(record, { requiredKeys: Object.keys(properties).filter((k) => required.has(k)) })
}

/** Valid params of `method` under `revision`, naming the catalogue's tools, prompts and resources half the time. */
export const validParams = (
  revision: Revision.Revision,
  method: string,
  catalogue?: Catalogue
): fc.Arbitrary<unknown> => {
  const shape = Method.shape(method, revision)
  if (shape === undefined) throw new Error(`${revision} has no ${method}`)
  const base = shape.params === null
    ? fc.constant(undefined)
    : shape.paramsRequired
    ? wireValues(revision, shape.params)
    : fc.option(wireValues(revision, shape.params), { nil: undefined })
  const named = catalogue === undefined ? base : fc.tuple(base, fc.boolean(), fc.nat()).chain(([params, use, pick]) => {
    if (!use || !Json.isRecord(params)) return fc.constant(params)
    const { prompts, tools, uris } = catalogue
    if (method === "tools/call" && tools.length > 0) {
      const tool = tools[pick % tools.length]!
      return argumentsFor(tool.inputSchema).map((args) => ({ ...params, name: tool.name, arguments: args }))
    }
    if (method === "prompts/get" && prompts.length > 0) {
      const prompt = prompts[pick % prompts.length]!
      const args = Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, fc.string({ maxLength: 20 })]))
      return fc.record(args).map((a) => ({ ...params, name: prompt.name, arguments: a }))
    }
    if (method.startsWith("resources/") && "uri" in params && uris.length > 0) {
      return fc.constant({ ...params, uri: uris[pick % uris.length] })
    }
    if (method === "completion/complete" && prompts.length > 0) {
      const prompt = prompts[pick % prompts.length]!
      const argument = prompt.arguments?.[0]?.name ?? "arg"
      return fc.string({ maxLength: 10 }).map((value) => ({
        ...params,
        ref: { type: "ref/prompt", name: prompt.name },
        argument: { name: argument, value }
      }))
    }
    return fc.constant(params)
  })
  if (!Revision.isStateless(revision)) return named
  // A 2026-07-28 request speaks its revision in `_meta` (the generated one says any string).
  return named.map((params) => {
    const p = Json.isRecord(params) ? params : {}
    const meta = Json.isRecord(p._meta) ? p._meta : {}
    return {
      ...p,
      _meta: { ...meta, ...meta2026, [metaKeys.clientCapabilities]: meta[metaKeys.clientCapabilities] ?? {} }
    }
  })
}

/** Places worth hitting in every request (added when absent). */
const focus: ReadonlyArray<H.Path> = [
  ["id"],
  ["params"],
  ["method"],
  ["jsonrpc"],
  ["params", "_meta"],
  ["params", "_meta", "progressToken"],
  ["params", "_meta", metaKeys.protocolVersion],
  ["params", "name"],
  ["params", "arguments"],
  ["params", "uri"],
  ["params", "cursor"],
  ["params", "task"]
]

/** Keys added to an object of the request. */
const addedKeys = ["_meta", "progressToken", "name", "uri", "arguments", "cursor", "__proto__", "x-fuzz"]

/** Where in the request the hostile value goes (an index into its paths, a focus place, or a key added somewhere). */
type Target =
  | { readonly _tag: "Any"; readonly pick: number }
  | { readonly _tag: "Focus"; readonly path: H.Path }
  | { readonly _tag: "Add"; readonly pick: number; readonly key: string }
  | { readonly _tag: "None" }

const target: fc.Arbitrary<Target> = fc.oneof(
  { weight: 6, arbitrary: fc.nat().map((pick) => ({ _tag: "Any" as const, pick })) },
  { weight: 4, arbitrary: fc.constantFrom(...focus).map((path) => ({ _tag: "Focus" as const, path })) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom(...addedKeys)).map(([pick, key]) => ({
      _tag: "Add" as const,
      pick,
      key
    }))
  },
  { weight: 1, arbitrary: fc.constant({ _tag: "None" as const }) }
)

/** The id put in a frame: a request id the test numbers, or a hostile one made unique to it. */
const idValue = (raw: H.Hostile, n: number): H.Hostile => {
  if (!H.isReadableId(raw.text)) return raw
  if (raw.text.startsWith("\"")) return { text: `"#${n}#${raw.text.slice(1)}`, what: `id ${raw.what}` }
  // A number that reads as an id: made unique to this frame, spelt in a way JSON allows.
  const spelt = [`${n}.0`, `${n}e0`, `-${n}`, `${n}E+0`][Math.abs(Number(raw.text.length)) % 4]!
  return { text: spelt, what: `id ${spelt}` }
}

/** Hostile requests of the given methods (default: every client→server request of the revision). */
export const requestFrames = (
  revision: Revision.Revision,
  options: { readonly catalogue?: Catalogue; readonly methods?: ReadonlyArray<string> } = {}
): fc.Arbitrary<(n: number) => RequestFrame> => {
  const methods = options.methods ?? clientRequests(revision)
  const paramsOf = new Map(methods.map((m) => [m, validParams(revision, m, options.catalogue)]))
  return fc.constantFrom(...methods).chain((method) =>
    fc.tuple(paramsOf.get(method)!, target, H.hostile, fc.boolean()).map(
      ([params, where, value, stringId]) => (n: number): RequestFrame => {
        const baseId = stringId ? `s${n}` : n
        const envelope = { jsonrpc: "2.0", id: baseId, method, ...(params === undefined ? {} : { params }) }
        const paths = H.pathsOf(envelope).filter((p) => p.length > 0)
        const objects = H.objectPathsOf(envelope)
        const path = where._tag === "Any"
          ? paths[where.pick % paths.length]!
          : where._tag === "Focus"
          ? where.path
          : where._tag === "Add"
          ? [...objects[where.pick % objects.length]!, where.key]
          : undefined
        if (path === undefined) {
          return { revision, method, text: JSON.stringify(envelope), id: baseId, path: "-", value: "-", params }
        }
        const raw = path.length === 1 && path[0] === "id" ? idValue(value, n) : value
        const text = H.splice(envelope, path, raw.text)
        const id = path.length === 1 && path[0] === "id" ? normalize(H.readId(raw.text)) : baseId
        return { revision, method, text, id, path: H.showPath(path), value: raw.what, params }
      }
    )
  )
}

/** An id as it comes back (`-0` is written `0`). */
const normalize = (
  id: string | number | null
) => (id === null ? null : JSON.parse(JSON.stringify(id)) as string | number)

/** A well-formed request that must succeed under `revision` with this id (ping, or `server/discover` in 2026). */
export const wellFormed = (revision: Revision.Revision, id: string | number | null): string =>
  Revision.isStateless(revision)
    ? JSON.stringify({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: meta2026 } })
    : JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })

/** The JSON-RPC error codes a hostile request may get (never -32603: bad input is not the server's fault). */
export const badInputCodes: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602])

/**
 * The other codes a frame may legitimately get: -32002 from a resource method (a URI no one serves); -32022 when the
 * revision a request names in `_meta` was replaced or added (an unsupported version); under 2026-07-28, -32021 from a
 * tool that needs a client capability the request's `_meta` does not declare.
 */
export const allowedCodes = (frame: RequestFrame): ReadonlySet<number> => {
  const extra: Array<number> = []
  if (frame.method.startsWith("resources/")) extra.push(-32002)
  if (frame.path.includes(metaKeys.protocolVersion)) extra.push(-32022)
  if (Revision.isStateless(frame.revision) && frame.method === "tools/call") extra.push(-32021)
  return new Set([...badInputCodes, ...extra])
}

/** How long an error's message or data may be: nothing reflects a hostile input back whole. */
export const maxErrorText = 4096

/** What is wrong with one answer to a frame (undefined when it is right). */
export const judge = (
  frame: RequestFrame,
  answer: unknown,
  extraCodes: ReadonlyArray<number> = []
): string | undefined => {
  if (!Json.isRecord(answer)) return "the answer is not a JSON-RPC response"
  const idOk = answer.id === frame.id
  if (!idOk) return `the answer has id ${JSON.stringify(answer.id)?.slice(0, 60)}`
  if ("result" in answer) return frame.id === null ? "a result with id null" : undefined
  const error = answer.error
  if (!Json.isRecord(error)) return "the answer has neither result nor error"
  const codes = new Set([...allowedCodes(frame), ...extraCodes])
  if (typeof error.code !== "number" || !codes.has(error.code)) return `error code ${String(error.code)}`
  if (frame.id === null && error.code !== -32600 && error.code !== -32700) return `code ${error.code} with id null`
  const message = typeof error.message === "string" ? error.message : ""
  const data = JSON.stringify(error.data ?? null)
  if (message.length > maxErrorText) return `an error message of ${message.length} chars`
  if (data.length > maxErrorText) return `error data of ${data.length} chars`
  return undefined
}

/** A frame in a failure report: where, what, and the start of the text. */
export const describeFrame = (frame: RequestFrame): string =>
  `${frame.revision} ${frame.method} id=${JSON.stringify(frame.id)?.slice(0, 40)} at ${frame.path}: ${frame.value} | ${
    frame.text.slice(0, 160)
  }`
