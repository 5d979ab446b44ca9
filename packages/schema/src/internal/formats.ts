/**
 * Building blocks the generated schemas share: string formats with arbitraries that produce valid
 * values, JSON numbers, and open objects.
 */
import type { Arbitrary } from "effect/FastCheck"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

type FC = typeof import("effect/FastCheck")

/**
 * A small arbitrary JSON tree: `scalar` leaves, arrays and objects of at most three entries, two levels deep.
 * `fc.jsonValue` and Effect's own recursion grow to hundreds of leaves per value, and JSON sits inside every
 * open object of every type, so the property tests would spend their time generating and copying noise.
 */
export const smallJson = <A>(fc: FC, scalar: Arbitrary<A>) => {
  const key = fc.string({ maxLength: 6 })
  const shallow = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(key, scalar, { maxKeys: 3 }))
  return fc.oneof(scalar, fc.array(shallow, { maxLength: 3 }), fc.dictionary(key, shallow, { maxKeys: 3 }))
}

/** Any JSON (`{}` in the spec): edge cases such as -0, null and odd keys included. */
const json = (fc: FC) =>
  smallJson(
    fc,
    fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null)
    )
  )

/** MCP's `JSONValue` (strings, integers, booleans, arrays, objects) as a small arbitrary tree. */
export const mcpJsonValue = (fc: FC) => smallJson(fc, fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()))

/** MCP's `JSONObject` as a small arbitrary object. */
export const mcpJsonObject = (fc: FC) => fc.dictionary(fc.string({ maxLength: 6 }), mcpJsonValue(fc), { maxKeys: 3 })

/** MCP's `JSONArray` as a small arbitrary array. */
export const mcpJsonArray = (fc: FC) => fc.array(mcpJsonValue(fc), { maxLength: 3 })

/** Extension keys as peers send them: a few namespaced names, so an open object gets at most a handful. */
const extensionKey = (fc: FC) => fc.constantFrom("com.example/trace", "x-vendor", "io.example.ext/flag")

/** Keys of a free-form object: a small pool (odd ones included), so an object gets at most a handful. */
const objectKey = (fc: FC) => fc.constantFrom("a", "key", "", "x-1", "ü")

/** A value the spec leaves unconstrained (`{}`): not validated, generated as JSON. */
export const AnyJson: Schema.SchemaClass<unknown> = Schema.Unknown.annotations({ arbitrary: () => (fc) => json(fc) })

/** A JSON number: finite. */
export const JsonNumber: Schema.SchemaClass<number> = Schema.Number.annotations({
  arbitrary: () => (fc) => fc.double({ noNaN: true, noDefaultInfinity: true })
})

/** A string in `uri` format (decoding is lenient, as peers are). */
export const Uri: Schema.SchemaClass<string> = Schema.String.annotations({ arbitrary: () => (fc) => fc.webUrl() })

/** A string in `uri-template` format (RFC 6570). */
export const UriTemplate: Schema.SchemaClass<string> = Schema.String.annotations({
  arbitrary: () => (fc) =>
    fc.tuple(
      fc.constantFrom("file", "https", "test", "mem"),
      fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { maxLength: 3 })
    ).map(([scheme, path]) => `${scheme}://${["host", ...path].join("/")}/{id}`)
})

/** A base64 string (`format: byte`). */
export const Base64: Schema.SchemaClass<string> = Schema.String.annotations({
  arbitrary: () => (fc) => fc.base64String()
})

/** An object whose every value has the given schema. */
export const JsonRecord = <S extends Schema.Schema.All>(value: S): Schema.Record$<typeof Schema.String, S> =>
  Schema.Record({ key: Schema.String, value })

/** A key of a free-form object (one schema shared by every such object). */
const ObjectKey = Schema.String.annotations({ arbitrary: () => (fc) => objectKey(fc) })

/** An open object with values of the given schema. */
export const OpenObject = <S extends Schema.Schema.All>(value: S): Schema.Record$<Schema.SchemaClass<string>, S> =>
  Schema.Record({ key: ObjectKey, value })

/** A bare `type: object`: an open object of any JSON values. */
export const OpenAnyJson: Schema.Record$<Schema.SchemaClass<string>, Schema.SchemaClass<unknown>> = OpenObject(AnyJson)

/** The index signature that keeps an object open: extra keys pass through unchanged. */
export const AnyJsonRecord: Schema.Record$<Schema.SchemaClass<string>, Schema.SchemaClass<unknown>> = Schema.Record({
  key: Schema.String.annotations({ arbitrary: () => (fc) => extensionKey(fc) }),
  value: AnyJson
})

/**
 * A key that other revisions define on this object but this revision does not: kept when decoding
 * (unknown keys pass through), dropped when encoding a domain value for this revision.
 */
export const Foreign: Schema.PropertySignature<"?:", unknown, never, "?:", unknown, false, never> = Schema
  .optionalToOptional(Schema.Unknown, Schema.Unknown, {
    decode: (o) => o,
    encode: () => Option.none()
  })
