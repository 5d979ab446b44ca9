/**
 * Where the official spec files are: `../shared/spec` beside the repository. A missing file fails the test that
 * reads it (these helpers throw; nothing is skipped).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root (this file is packages/schema/test/spec.ts). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** The spec directory: `<repo root>/../shared/spec`. */
export const specDir = path.join(repoRoot, "..", "shared", "spec")

/** Reads a JSON file under the spec directory (throws, failing the test, when it is missing). */
export const readSpecJson = (...parts: Array<string>): unknown =>
  JSON.parse(fs.readFileSync(path.join(specDir, ...parts), "utf8"))

/** A revision's schema.json: which dialect it declares and its definitions. */
export interface SchemaDocument {
  readonly $schema: string
  readonly $defs?: Readonly<Record<string, unknown>>
  readonly definitions?: Readonly<Record<string, unknown>>
}

/** Reads a revision's schema.json (throws when it is missing or has no definitions). */
export const readSchemaDocument = (revision: string): SchemaDocument => {
  const document = readSpecJson(revision, "schema.json") as SchemaDocument
  if (typeof document.$schema !== "string" || (document.$defs ?? document.definitions) === undefined) {
    throw new Error(`${revision}/schema.json declares no $schema or no definitions`)
  }
  return document
}

/**
 * A revision's schema.json with the corrections the generator (packages/schema/scripts/generate.mjs) makes and
 * documents: ElicitResult `content` values accept any JSON number, not only integers.
 */
export const readCorrectedSchemaDocument = (revision: string): SchemaDocument => {
  const document = readSchemaDocument(revision)
  const defs = (document.$defs ?? document.definitions) as Record<string, any>
  const value = defs.ElicitResult?.properties?.content?.additionalProperties
  if (value === undefined) return document
  const widen = (s: any) =>
    Array.isArray(s.type) ? { ...s, type: s.type.map((t: string) => (t === "integer" ? "number" : t)) } : s
  const result = defs.ElicitResult
  const corrected = {
    ...defs,
    ElicitResult: {
      ...result,
      properties: {
        ...result.properties,
        content: {
          ...result.properties.content,
          additionalProperties: value.anyOf ? { ...value, anyOf: value.anyOf.map(widen) } : widen(value)
        }
      }
    }
  }
  return document.$defs !== undefined ? { ...document, $defs: corrected } : { ...document, definitions: corrected }
}
