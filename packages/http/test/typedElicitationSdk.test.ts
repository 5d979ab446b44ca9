/**
 * Typed elicitation as the official SDK v2 client (@modelcontextprotocol/client 2.4) meets it over Streamable HTTP,
 * on a 2025-11-25 session (a real elicitation/create request) and under 2026-07-28 (an input_required round the
 * client fulfils with the same handler). The SDK checks the form's answer against the requestedSchema it received
 * before it sends it, so an answer that passes there and decodes here shows the two agree.
 */
import { Elicitation, McpServer, RequestContext } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { serve } from "./helpers.js"

const Signup = Schema.Struct({
  email: Elicitation.Email.annotations({ title: "Email" }),
  age: Schema.Int.pipe(Schema.between(18, 120)),
  plan: Schema.Literal("free", "pro"),
  newsletter: Schema.optional(Schema.Boolean),
  since: Elicitation.IsoDate
})

const SignUp = McpServer.tool({
  name: "sign_up",
  input: Schema.Struct({}),
  handler: () =>
    RequestContext.elicit("Sign up?", Signup).pipe(
      Effect.map((outcome) =>
        outcome._tag === "Accepted"
          ? `${outcome.value.email} (${
            outcome.value.age + 1
          } next year) on ${outcome.value.plan} since ${outcome.value.since}${
            outcome.value.newsletter === true ? ", with the newsletter" : ""
          }`
          : outcome._tag
      ),
      Effect.catchTag("ElicitationError", (e) => Effect.succeed(`${e.reason}: ${e.message}`))
    )
})

type Answer = { readonly action: "accept" | "decline" | "cancel"; readonly content?: Record<string, unknown> }

/** An SDK v2 client on `url` whose user answers every form with `answer`, at `revision`; closed with the scope. */
const sdkClient = (url: string, revision: "2025-11-25" | "2026-07-28", answer: Answer) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const seen: Array<unknown> = []
      const client = new Client({ name: "sdk2-typed-elicitation", version: "2.4.0" }, {
        capabilities: { elicitation: { form: {} } },
        ...(revision === "2026-07-28"
          ? { versionNegotiation: { mode: { pin: "2026-07-28" } } }
          : { supportedProtocolVersions: [revision] })
      })
      client.setRequestHandler("elicitation/create", async (request) => {
        seen.push((request.params as { readonly requestedSchema?: unknown }).requestedSchema)
        return answer as never
      })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return { client, seen }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text

for (const revision of ["2025-11-25", "2026-07-28"] as const) {
  describe(`typed elicitation with the SDK v2 client over HTTP, ${revision}`, () => {
    it.scoped("the form the SDK receives, and its accepted answer decoded", () =>
      Effect.gen(function*() {
        const running = yield* serve({}, SignUp)
        const { client, seen } = yield* sdkClient(running.url, revision, {
          action: "accept",
          content: { email: "ada@example.com", age: 36, plan: "pro", newsletter: true, since: "2020-01-31" }
        })
        expect(client.getNegotiatedProtocolVersion()).toBe(revision)
        const result = yield* Effect.promise(() => client.callTool({ name: "sign_up", arguments: {} }))
        expect(textOf(result)).toBe("ada@example.com (37 next year) on pro since 2020-01-31, with the newsletter")
        expect(seen[0]).toMatchObject({
          type: "object",
          properties: {
            email: { type: "string", format: "email", title: "Email" },
            age: { type: "integer", minimum: 18, maximum: 120 },
            plan: { type: "string", enum: ["free", "pro"] },
            newsletter: { type: "boolean" },
            since: { type: "string", format: "date" }
          },
          required: ["email", "age", "plan", "since"]
        })
      }))

    it.scoped("decline and cancel reach the handler as such", () =>
      Effect.gen(function*() {
        const running = yield* serve({}, SignUp)
        for (const action of ["decline", "cancel"] as const) {
          const { client } = yield* sdkClient(running.url, revision, { action })
          const result = yield* Effect.promise(() => client.callTool({ name: "sign_up", arguments: {} }))
          expect(textOf(result)).toBe(action === "decline" ? "Declined" : "Cancelled")
        }
      }))

    it.scoped("an answer the form allows but the schema refuses is a typed InvalidAnswer", () =>
      Effect.gen(function*() {
        const running = yield* serve({}, SignUp)
        // 2020-02-31 is a well-formed `date` for the SDK's check, but no calendar date.
        const { client } = yield* sdkClient(running.url, revision, {
          action: "accept",
          content: { email: "ada@example.com", age: 36, plan: "free", since: "2020-02-31" }
        })
        const result = yield* Effect.promise(() => client.callTool({ name: "sign_up", arguments: {} }))
        expect(textOf(result)).toMatch(/^InvalidAnswer: .*since/s)
      }))
  })
}
