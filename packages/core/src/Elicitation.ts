/**
 * Typed elicitation: a form described by an Effect Schema (a flat object of strings, numbers, integers, booleans
 * and string enums, with the formats `email`, `uri`, `date`, `date-time`, titles, descriptions and defaults), sent as
 * the `requestedSchema` of an `elicitation/create` form request, and the user's answer decoded into the schema's
 * type. Accept, decline and cancel are an `Outcome`; a schema no form can express, or an answer that does not
 * decode, is an `ElicitationError`. The same code runs in every era: on handshake revisions it sends a real request,
 * under 2026-07-28 it is a round of the `input_required` exchange.
 */
import type { Mcp, McpError } from "@effect-mcp/schema"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Form from "./internal/elicitationForm.js"
import type { RequestContextService } from "./RequestContext.js"

/** What one form field holds on the wire: a string, a number, a boolean, or the members chosen in a multi-select. */
export type FieldValue = string | number | boolean | ReadonlyArray<string>

/** The encoded side of a form schema: a flat object of field values (optional fields may be absent). */
export type Fields = { readonly [key: string]: FieldValue | undefined }

/** The user accepted and their answer decoded into the form's type. */
export interface Accepted<A> {
  readonly _tag: "Accepted"
  readonly value: A
}

/** The user explicitly declined. */
export interface Declined {
  readonly _tag: "Declined"
}

/** The user dismissed the form without choosing. */
export interface Cancelled {
  readonly _tag: "Cancelled"
}

/** How the user answered a typed elicitation. */
export type Outcome<A> = Accepted<A> | Declined | Cancelled

/** Why a typed elicitation failed: its schema is no form (`UnsupportedSchema`), or the answer does not decode. */
export class ElicitationError extends Data.TaggedError("ElicitationError")<{
  readonly reason: "UnsupportedSchema" | "InvalidAnswer"
  readonly message: string
}> {}

/** The `requestedSchema` a form schema becomes, or the reason it cannot be one. */
export const requestedSchema = <A, I extends Fields>(
  schema: Schema.Schema<A, I, never>
): Either.Either<Form.RequestedSchema, ElicitationError> =>
  Either.mapLeft(
    Form.requestedSchema(schema),
    (reason) => new ElicitationError({ reason: "UnsupportedSchema", message: `Not an elicitation form: ${reason}` })
  )

const decodeOptions = { errors: "all", onExcessProperty: "ignore" } as const

/** The outcome of a raw elicitation result for a form: accept's content decoded with the form's schema. */
export const decodeResult = <A, I extends Fields>(
  schema: Schema.Schema<A, I, never>
): (result: Mcp.ElicitResult) => Effect.Effect<Outcome<A>, ElicitationError> => {
  const decode = Schema.decodeUnknown(schema, decodeOptions)
  return (result) => {
    if (result.action === "decline") return Effect.succeed({ _tag: "Declined" })
    if (result.action === "cancel") return Effect.succeed({ _tag: "Cancelled" })
    return decode(result.content ?? {}).pipe(
      Effect.map((value): Outcome<A> => ({ _tag: "Accepted", value })),
      Effect.mapError((error) =>
        new ElicitationError({
          reason: "InvalidAnswer",
          message: `The answer does not fit the form: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
        })
      )
    )
  }
}

/** Asks the user, through `context`'s client, to fill in the form `schema` describes, and decodes the answer. */
export const elicitWith = <A, I extends Fields>(
  context: RequestContextService,
  message: string,
  schema: Schema.Schema<A, I, never>
): Effect.Effect<Outcome<A>, ElicitationError | McpError.McpError> =>
  Either.match(requestedSchema(schema), {
    onLeft: Effect.fail,
    onRight: (requested) =>
      Effect.flatMap(
        context.elicit({ message, requestedSchema: requested as Mcp.ElicitRequestFormParams["requestedSchema"] }),
        decodeResult(schema)
      )
  })

const emailPattern = /^[^\s@]+@[^\s@]+$/
const datePattern = /^\d{4}-\d{2}-\d{2}$/

/** Whether `s` is `YYYY-MM-DD` and names a day of the calendar (not 2020-02-31). */
const isCalendarDate = (s: string): boolean => {
  if (!datePattern.test(s)) return false
  const time = Date.parse(`${s}T00:00:00Z`)
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(s)
}

/** A form field for an email address (`format: "email"`). */
export const Email = Schema.String.pipe(
  Schema.filter((s) => emailPattern.test(s) || "an email address"),
  Schema.annotations({ identifier: "Email", jsonSchema: { format: "email" } })
)

/** A form field for an absolute URI (`format: "uri"`). */
export const Uri = Schema.String.pipe(
  Schema.filter((s) => URL.canParse(s) || "an absolute URI"),
  Schema.annotations({ identifier: "Uri", jsonSchema: { format: "uri" } })
)

/** A form field for a calendar date, `YYYY-MM-DD` (`format: "date"`), kept as its text. */
export const IsoDate = Schema.String.pipe(
  Schema.filter((s) => isCalendarDate(s) || "a date (YYYY-MM-DD)"),
  Schema.annotations({ identifier: "IsoDate", jsonSchema: { format: "date" } })
)

const DateTimeText = Schema.String.pipe(
  Schema.filter((s) => !Number.isNaN(Date.parse(s)) || "a date and time (ISO 8601)"),
  Schema.annotations({ jsonSchema: { format: "date-time" } })
)

/** A form field for a date and time (`format: "date-time"`), decoded into a `Date` (encoded as ISO 8601). */
export const DateTime: Schema.Schema<Date, string> = Schema.transform(DateTimeText, Schema.DateFromSelf, {
  strict: true,
  decode: (text) => new Date(text),
  encode: (date) => date.toISOString()
})
