/**
 * Hostile JSON values for the fuzzers, as raw JSON text (never as JS objects, so a value 10,000 levels deep costs
 * nothing to build or to write): arrays and objects nested from 1 to 10,000 levels, strings up to 1 MB (escapes,
 * astral and lone surrogates included), wide arrays and objects, numbers and the other scalars. Plus the seed every
 * fuzz test file prints and takes from `EFFECT_MCP_FUZZ_SEED`, and the knob of how many frames they send.
 */
import { Json } from "@effect-mcp/schema"
import * as fc from "effect/FastCheck"

/** A JSON value in raw text, with what it is (for failure reports). */
export interface Hostile {
  /** The value as JSON text (one line). */
  readonly text: string
  /** What it is, e.g. `array nested 5000 deep` or `string of 1000000 chars`. */
  readonly what: string
}

/** How deep a nested value goes: mostly shallow, often past any bound of 1,000 levels, up to 10,000. */
export const depth: fc.Arbitrary<number> = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 20 }) },
  { weight: 2, arbitrary: fc.integer({ min: 21, max: 999 }) },
  { weight: 4, arbitrary: fc.integer({ min: 1000, max: 10_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(999, 1000, 1001, 1024, 4096, 10_000) }
)

/** How long a string gets: mostly short, sometimes up to 1 MB (well within the 4 MiB HTTP body limit). */
export const size: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 2_000 }) },
  { weight: 3, arbitrary: fc.integer({ min: 2_001, max: 100_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100_001, max: 1_000_000 }) }
)

/** The openers of nested values (each closes with the matching closer). */
const openers: ReadonlyArray<readonly [string, string]> = [
  ["[", "]"],
  ["{\"a\":", "}"],
  ["[1,", "]"],
  ["{\"_meta\":", "}"],
  ["[null,{\"x\":", "}]"],
  ["{\"\":[", "]}"],
  ["{\"text\":", "}"]
]

/** The innermost value of a nested value. */
const leaves = ["1", "null", "\"x\"", "[]", "{}", "true", "-1.5e300"]

/** A value `levels` deep, cycling through the given openers. */
export const nested = (levels: number, pattern: ReadonlyArray<number>, leaf: string): Hostile => {
  const open: Array<string> = []
  const close: Array<string> = []
  let depthSoFar = 0
  for (let i = 0; depthSoFar < levels; i++) {
    const [o, c] = openers[pattern[i % pattern.length]!]!
    open.push(o)
    close.push(c)
    depthSoFar += o.split(/[[{]/).length - 1
  }
  const shape = pattern.map((p) => openers[p]![0]).join("")
  return { text: open.join("") + leaf + close.reverse().join(""), what: `${shape} nested ${depthSoFar} deep` }
}

/** The repeated units of long strings (as JSON text): plain, multi-byte, escapes, astral, a lone surrogate. */
const units = ["x", "é", "\\u0000", "\\\"", "\\\\", "😀", "\\ud800", "\\n", "<script>"]

/** The most bytes a long string takes as JSON text: 1 MB, well within the 4 MiB HTTP body limit. */
const maxStringBytes = 1_000_000

/** A string of `chars` units of one kind (fewer when that would take more than 1 MB of JSON text). */
export const longString = (chars: number, unit: number): Hostile => {
  const u = units[unit % units.length]!
  const n = Math.max(0, Math.min(chars, Math.floor(maxStringBytes / Buffer.byteLength(u))))
  return { text: `"${u.repeat(n)}"`, what: `string of ${n} × ${JSON.stringify(u)}` }
}

/** Scalars and small values of every JSON type. */
const scalars: ReadonlyArray<string> = [
  "null",
  "true",
  "false",
  "0",
  "-0",
  "-1",
  "1.5",
  "1e308",
  "-1e400",
  "9007199254740993",
  "123456789012345678901234567890",
  "\"\"",
  "\" \"",
  "\"null\"",
  "\"\\u0000\"",
  "{}",
  "[]",
  "[{}]",
  "{\"__proto__\":{\"polluted\":true}}",
  "{\"constructor\":{\"prototype\":{}}}",
  "{\"toString\":1,\"valueOf\":null}",
  "{\"toString\":null}",
  "{\"toString\":{},\"valueOf\":{}}",
  "[{\"toString\":null}]"
]

/** Any hostile value: deep, long, wide or scalar. */
export const hostile: fc.Arbitrary<Hostile> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.tuple(
      depth,
      fc.array(fc.integer({ min: 0, max: openers.length - 1 }), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...leaves)
    ).map(([levels, pattern, leaf]) => nested(levels, pattern, leaf))
  },
  {
    weight: 2,
    arbitrary: fc.tuple(size, fc.nat()).map(([chars, unit]) => longString(chars, unit))
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 200_000 }), fc.boolean()).map(([n, array]): Hostile =>
      array
        ? { text: `[${"0,".repeat(n - 1)}0]`, what: `array of ${n} zeros` }
        : {
          text: `{${Array.from({ length: Math.min(n, 50_000) }, (_, i) => `"k${i}":${i}`).join(",")}}`,
          what: `object of ${Math.min(n, 50_000)} keys`
        }
    )
  },
  { weight: 3, arbitrary: fc.constantFrom(...scalars).map((text) => ({ text, what: `scalar ${text}` })) }
)

/** Whether raw JSON is an id a peer must answer with (a string, or a safe integer). */
export const isReadableId = (text: string): boolean => {
  const first = text[0]
  if (first === "[" || first === "{") return false
  const v: unknown = JSON.parse(text)
  return typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v))
}

/** The id raw JSON is read as, or null when it is no id (a string, or a safe integer). */
export const readId = (text: string): string | number | null =>
  isReadableId(text) ? (JSON.parse(text) as string | number) : null

/** Where a value was put: its keys from the root (`["params", "arguments", "text"]`). */
export type Path = ReadonlyArray<string | number>

/** A path as people read it: `params.arguments.text`, `params.content[0].text`. */
export const showPath = (path: Path): string =>
  path.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? k : `.${k}`)).join("") || "(the root)"

/** Every path of a JSON value (objects and arrays, recursively; the root is `[]`). */
export const pathsOf = (value: unknown, prefix: Path = []): Array<Path> => {
  const out: Array<Path> = [prefix]
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])))
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]))
  }
  return out
}

/** The objects of a JSON value, by path (where a key can be added). */
export const objectPathsOf = (value: unknown): Array<Path> =>
  pathsOf(value).filter((p) => {
    const v = at(value, p)
    return Json.isRecord(v)
  })

/** The value at a path, or undefined. */
export const at = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>(
    (v, k) => (typeof v === "object" && v !== null ? (v as Record<string, unknown>)[k] : undefined),
    value
  )

const marker = "\u0001fuzz\u0001"
const markerJson = JSON.stringify(marker)

/**
 * The JSON text of `value` with `raw` put at `path` (replacing what is there, or adding the key; missing objects on
 * the way are made). The value is copied, never changed; `raw` is spliced into the text as it is.
 */
export const splice = (value: unknown, path: Path, raw: string): string => {
  if (path.length === 0) return raw
  const put = (v: unknown, i: number): unknown => {
    const key = path[i]!
    const last = i === path.length - 1
    if (Array.isArray(v) && typeof key === "number") {
      const copy = [...v]
      copy[key] = last ? marker : put(v[key], i + 1)
      return copy
    }
    const base = Json.record(v)
    return { ...base, [key]: last ? marker : put(base[key], i + 1) }
  }
  return JSON.stringify(put(value, 0)).replace(markerJson, () => raw)
}

/** The seed of the test command's runs: a green run stays green (`EFFECT_MCP_FUZZ_SEED=random` explores). */
const defaultSeed = 20_261_206

/**
 * The seed of a fuzz run, printed: `EFFECT_MCP_FUZZ_SEED` when set (a number replays a failure, `random` draws a new
 * one), else the fixed default.
 */
export const seed = (file: string): number => {
  const given = process.env.EFFECT_MCP_FUZZ_SEED
  const value = given === undefined || given === ""
    ? defaultSeed
    : given === "random"
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(given)
  if (!Number.isSafeInteger(value)) throw new Error(`EFFECT_MCP_FUZZ_SEED is not an integer: ${given}`)
  process.stderr.write(`${file}: fuzz seed ${value} (replay with EFFECT_MCP_FUZZ_SEED=${value})\n`)
  return value
}

/** How many frames a schema-driven fuzz test sends: `EFFECT_MCP_FUZZ_SCHEMA_FRAMES`, else `fallback`. */
export const frameCount = (fallback: number): number => {
  const given = Number(process.env.EFFECT_MCP_FUZZ_SCHEMA_FRAMES ?? fallback)
  return Number.isInteger(given) && given > 0 ? given : fallback
}
