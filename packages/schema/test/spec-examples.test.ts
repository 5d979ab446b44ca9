import { Codec } from "@effect-mcp/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as path from "node:path"
import { readSpecJson, specDir } from "./spec.js"

const dir = path.join(specDir, "2026-07-28", "examples")
const folders = fs.readdirSync(dir).sort()
const files = folders.flatMap((type) => fs.readdirSync(path.join(dir, type)).map((file) => ({ type, file })))

describe("the official 2026-07-28 examples", () => {
  it("are all there", () => {
    expect(files.length).toBe(129)
    for (const type of folders) expect(fs.readdirSync(path.join(dir, type)).length).toBeGreaterThan(0)
  })

  for (const { file, type } of files) {
    it(`${type}/${file} decodes and re-encodes to equal JSON`, () => {
      expect(Codec.schemaOf("2026-07-28", type)).toBeDefined()
      const json = readSpecJson("2026-07-28", "examples", type, file)
      const decoded = Codec.decode("2026-07-28", type, json)
      if (Either.isLeft(decoded)) expect.fail(Codec.describe(decoded.left))
      const encoded = Codec.encode("2026-07-28", type, Either.getOrThrow(decoded))
      if (Either.isLeft(encoded)) expect.fail(Codec.describe(encoded.left))
      expect(Either.getOrThrow(encoded)).toEqual(json)
    })
  }
})
