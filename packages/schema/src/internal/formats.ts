/**
 * Building blocks the generated schemas share: string formats with arbitraries that produce valid
 * values, JSON numbers, and open objects.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const json = (fc: typeof import("effect/FastCheck")) => fc.jsonValue({ maxDepth: 2 })

/** A value the spec leaves unconstrained (`{}`): not validated, generated as JSON. */
export const AnyJson = Schema.Unknown.annotations({ arbitrary: () => (fc) => json(fc) })

/** A JSON number: finite. */
export const JsonNumber = Schema.Number.annotations({
  arbitrary: () => (fc) => fc.double({ noNaN: true, noDefaultInfinity: true })
})

/** A string in `uri` format (decoding is lenient, as peers are). */
export const Uri = Schema.String.annotations({ arbitrary: () => (fc) => fc.webUrl() })

/** A string in `uri-template` format (RFC 6570). */
export const UriTemplate = Schema.String.annotations({
  arbitrary: () => (fc) =>
    fc.tuple(
      fc.constantFrom("file", "https", "test", "mem"),
      fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { maxLength: 3 })
    ).map(([scheme, path]) => `${scheme}://${["host", ...path].join("/")}/{id}`)
})

/** A base64 string (`format: byte`). */
export const Base64 = Schema.String.annotations({ arbitrary: () => (fc) => fc.base64String() })

/** An object whose every value has the given schema. */
export const JsonRecord = <A, I, R>(value: Schema.Schema<A, I, R>) => Schema.Record({ key: Schema.String, value })

/** An open object with values of the given schema (`AnyJson` for a bare `type: object`). */
export const OpenObject = <A, I, R>(value: Schema.Schema<A, I, R>) => Schema.Record({ key: Schema.String, value })

/** The index signature that keeps an object open: extra keys pass through unchanged. */
export const AnyJsonRecord = Schema.Record({ key: Schema.String, value: AnyJson })

/**
 * A key that other revisions define on this object but this revision does not: kept when decoding
 * (unknown keys pass through), dropped when encoding a domain value for this revision.
 */
export const Foreign = Schema.optionalToOptional(Schema.Unknown, Schema.Unknown, {
  decode: (o) => o,
  encode: () => Option.none()
})
