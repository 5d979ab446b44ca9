/**
 * Where the official spec files are: ../shared/spec beside the checkout. A missing file fails the test.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The spec directory. */
export const specDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "shared", "spec")

/** Reads a JSON file under the spec directory (throws, failing the test, when it is missing). */
export const readSpecJson = (...parts: Array<string>): any =>
  JSON.parse(fs.readFileSync(path.join(specDir, ...parts), "utf8"))
