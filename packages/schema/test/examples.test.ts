/**
 * Every official 2026-07-28 example decodes with the schema of the type its folder names and re-encodes to
 * equal JSON. A missing examples directory, an empty folder or a folder whose type we have no schema for fails.
 */
import { Codec } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as path from "node:path"
import { readSpecJson, specDir } from "./spec.js"

const revision = "2026-07-28"
const dir = path.join(specDir, revision, "examples")
const folders = fs.readdirSync(dir).sort()
const files = folders.flatMap((type) => fs.readdirSync(path.join(dir, type)).sort().map((file) => ({ type, file })))

describe(`the official ${revision} examples`, () => {
  it("are all there: 129 files, no folder empty", () => {
    expect(files.length).toBe(129)
    for (const type of folders) {
      expect(fs.statSync(path.join(dir, type)).isDirectory(), `${type} is not a folder`).toBe(true)
      expect(files.filter((f) => f.type === type).length, `${type}/ has no examples`).toBeGreaterThan(0)
    }
  })

  for (const { file, type } of files) {
    it(`${type}/${file} decodes and re-encodes to equal JSON`, () => {
      expect(Codec.schemaOf(revision, type), `no schema for ${type}`).toBeDefined()
      const json = readSpecJson(revision, "examples", type, file)
      const decoded = Codec.decode(revision, type, json)
      if (Either.isLeft(decoded)) expect.fail(`${type}/${file} does not decode: ${Codec.describe(decoded.left)}`)
      const encoded = Codec.encode(revision, type, decoded.right)
      if (Either.isLeft(encoded)) expect.fail(`${type}/${file} does not encode: ${Codec.describe(encoded.left)}`)
      expect(encoded.right).toEqual(json)
    })
  }
})
