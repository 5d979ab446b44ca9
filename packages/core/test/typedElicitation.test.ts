/**
 * Typed elicitation: a form schema becomes the requestedSchema a client sees, the answer is decoded into the schema's
 * type (accept, decline, cancel), and an answer that does not decode, or a schema no form can express, is a typed
 * ElicitationError. The same tool runs over a 2025-11-25 handshake (a real elicitation/create request) and under
 * 2026-07-28 (an input_required round), with our client.
 */
import { ClientHandlers, Elicitation, McpServer, RequestContext } from "@effect-mcp/core"
import type { Mcp, Revision } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { connect } from "./helpers.js"

const Booking = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1)).annotations({ title: "Name", description: "Who books" }),
  email: Elicitation.Email,
  guests: Schema.Int.pipe(Schema.between(1, 8)).annotations({ title: "Guests", default: 2 }),
  budget: Schema.optional(Schema.Number),
  vegetarian: Schema.Boolean.annotations({ default: false }),
  room: Schema.Literal("single", "double"),
  day: Elicitation.IsoDate,
  arrival: Elicitation.DateTime,
  extras: Schema.optional(Schema.Array(Schema.Literal("breakfast", "parking")))
})

/** The requestedSchema Booking becomes (what every client sees, in both eras). */
const bookingForm = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", description: "Who books", minLength: 1 },
    email: { type: "string", format: "email" },
    guests: { type: "integer", title: "Guests", minimum: 1, maximum: 8, default: 2 },
    budget: { type: "number" },
    vegetarian: { type: "boolean", default: false },
    room: { type: "string", enum: ["single", "double"] },
    day: { type: "string", format: "date" },
    arrival: { type: "string", format: "date-time" },
    extras: { type: "array", items: { type: "string", enum: ["breakfast", "parking"] } }
  },
  required: ["name", "email", "guests", "vegetarian", "room", "day", "arrival"]
}

describe("the requested schema of a form", () => {
  it("is the flat form elicitation allows, with titles, descriptions, defaults and formats", () => {
    const requested = Elicitation.requestedSchema(Booking)
    expect(Either.isRight(requested)).toBe(true)
    const properties = Either.getOrThrow(requested).properties
    // Effect's own filters add descriptions of their own ("an integer"): only the fields' shape is pinned here.
    expect(Object.keys(properties)).toEqual(Object.keys(bookingForm.properties))
    for (const [name, expected] of Object.entries(bookingForm.properties)) {
      expect(properties[name], name).toMatchObject(expected)
    }
    expect(Either.getOrThrow(requested).required).toEqual(bookingForm.required)
  })

  it("titles an enum whose members have titles", () => {
    const Size = Schema.Union(
      Schema.Literal("s").annotations({ title: "Small" }),
      Schema.Literal("l").annotations({ title: "Large" })
    )
    const requested = Either.getOrThrow(Elicitation.requestedSchema(Schema.Struct({ size: Size })))
    expect(requested.properties.size).toEqual({
      type: "string",
      oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }]
    })
  })

  it("refuses at run time what the types let through but no form expresses", () => {
    const refused = (schema: Schema.Schema<any, any, never>) => {
      const requested = Elicitation.requestedSchema(schema)
      return Either.isLeft(requested) ? requested.left : undefined
    }
    expect(refused(Schema.Struct({ level: Schema.Literal(1, 2) }))?.reason).toBe("UnsupportedSchema")
    expect(refused(Schema.Struct({ level: Schema.Literal(1, 2) }))?.message).toContain("field level")
    expect(refused(Schema.Struct({ any: Schema.Any }))?.message).toContain("field any")
    expect(refused(Schema.Struct({ web: Schema.String.annotations({ jsonSchema: { format: "ipv4" } }) }))?.message)
      .toContain(`format "ipv4"`)
    expect(refused(Schema.Record({ key: Schema.String, value: Schema.String }))?.message).toContain("named fields")
  })

  it("refuses nested objects and other non-form shapes at the type level", () => {
    const Nested = Schema.Struct({ address: Schema.Struct({ city: Schema.String }) })
    // @ts-expect-error a form's fields are flat
    const nested = () => RequestContext.elicit("Where?", Nested)
    const Dates = Schema.Struct({ when: Schema.DateFromSelf })
    // @ts-expect-error a Date is no wire value: use Elicitation.DateTime
    const dates = () => RequestContext.elicit("When?", Dates)
    expect([typeof nested, typeof dates]).toEqual(["function", "function"])
  })
})

/** What the client's user does with each form, by the form's message. */
const answers: Record<string, Mcp.ElicitResult> = {
  accept: {
    action: "accept",
    content: {
      name: "Ada",
      email: "ada@example.com",
      guests: 3,
      vegetarian: true,
      room: "double",
      day: "2026-07-28",
      arrival: "2026-07-28T15:00:00.000Z",
      extras: ["parking"]
    }
  },
  decline: { action: "decline" },
  cancel: { action: "cancel" },
  "bad answer": { action: "accept", content: { name: "Ada", email: "not an email", guests: 11 } }
}

/** A tool that books with whatever the user answers to the form (the message says which answer). */
const Book = McpServer.tool({
  name: "book",
  input: Schema.Struct({ message: Schema.String }),
  handler: ({ message }) =>
    RequestContext.elicit(message, Booking).pipe(
      Effect.map((outcome) => {
        switch (outcome._tag) {
          case "Accepted": {
            const b = outcome.value
            return `${b.name} <${b.email}>, ${b.guests} guests, ${b.room}, ${b.day}, arriving ${b.arrival.toISOString()}, ${
              b.vegetarian ? "vegetarian" : "any food"
            }, extras: ${(b.extras ?? []).join("+")}`
          }
          case "Declined":
            return "declined"
          case "Cancelled":
            return "cancelled"
        }
      }),
      Effect.catchTag("ElicitationError", (e) => Effect.succeed(`${e.reason}: ${e.message}`))
    )
})

const server = Book.pipe(Layer.provideMerge(McpServer.layer({ name: "typed-elicitation", version: "1.0.0" })))

const eras: ReadonlyArray<Revision.Revision> = ["2025-11-25", "2026-07-28"]

for (const revision of eras) {
  describe(`typed elicitation with our client, ${revision}`, () => {
    const seen: Array<unknown> = []
    const handlers = ClientHandlers.elicitation({
      elicit: (params) =>
        Effect.sync(() => {
          seen.push((params as Mcp.ElicitRequestFormParams).requestedSchema)
          return answers[params.message]!
        })
    })
    const call = (message: string) =>
      Effect.gen(function*() {
        const client = yield* connect(server, { client: { name: "t", version: "0", revision }, handlers })
        expect(client.revision).toBe(revision)
        const result = yield* client.callTool("book", { message })
        return (result.content[0] as Mcp.TextContent).text
      })

    it.scoped("accept: the answer decoded into the form's type", () =>
      Effect.gen(function*() {
        expect(yield* call("accept")).toBe(
          "Ada <ada@example.com>, 3 guests, double, 2026-07-28, arriving 2026-07-28T15:00:00.000Z, vegetarian, extras: parking"
        )
        expect(seen.at(-1)).toMatchObject(bookingForm)
      }))

    it.scoped("decline and cancel", () =>
      Effect.gen(function*() {
        expect(yield* call("decline")).toBe("declined")
        expect(yield* call("cancel")).toBe("cancelled")
      }))

    it.scoped("a client that cannot elicit: the handler's elicit fails with -32021, typed", () =>
      Effect.gen(function*() {
        const Ask = McpServer.tool({
          name: "ask",
          input: Schema.Struct({}),
          handler: () =>
            RequestContext.elicit("Your booking?", Booking).pipe(
              Effect.as("answered"),
              Effect.catchTags({
                MissingRequiredClientCapability: (e) => Effect.succeed(`cannot ask: ${e.code}`),
                ElicitationError: (e) => Effect.succeed(e.reason)
              })
            )
        })
        const c = yield* connect(
          Ask.pipe(Layer.provideMerge(McpServer.layer({ name: "no-elicitation", version: "1.0.0" }))),
          { client: { name: "t", version: "0", revision } }
        )
        const result = yield* c.callTool("ask", {})
        expect(result.content).toEqual([{ type: "text", text: "cannot ask: -32021" }])
      }))

    it.scoped("an answer that does not decode is a typed InvalidAnswer", () =>
      Effect.gen(function*() {
        const text = yield* call("bad answer")
        expect(text).toMatch(/^InvalidAnswer: The answer does not fit the form/)
        expect(text).toContain("email")
        expect(text).toContain("guests")
      }))
  })
}
