/**
 * Runs a program bundled into one CommonJS file with V8's code cache: the first run saves the code V8 compiled (the
 * bundle's top level and every function its start-up and first requests ran), and every later run starts from it
 * instead of parsing and compiling the file again. Compiling a bundled server is about a third of its start-up
 * (docs/bundling.md). Node 22.1+ has a cache of its own for ES modules (`module.enableCompileCache`); this one works
 * on every Node we support (20, 22, 24), through `vm.Script`'s `cachedData`, which only scripts (CommonJS) have.
 *
 * A launcher calls it before anything else loads, so it is plain Node, not Effect: loading Effect is part of what it
 * saves. Bundle the launcher too (docs/bundling.md; `examples/bundled`):
 *
 * ```ts
 * import * as CodeCache from "@effect-mcp/node/CodeCache"
 * CodeCache.run(new URL("./server.cjs", import.meta.url))
 * ```
 *
 * V8 checks a cache against the source, its own version and its flags, and rejects one that does not match (then this
 * compiles as usual and saves a new one). The cache is kept in a folder only this user can write (internal/
 * cacheDirectory.ts); when there is none, the program simply runs uncached.
 */
import * as Fs from "node:fs"
import * as Module from "node:module"
import * as Path from "node:path"
import * as Url from "node:url"
import * as Vm from "node:vm"
import * as CacheDirectory from "./internal/cacheDirectory.js"

/** Where and when the compiled code is kept. */
export interface Options {
  /**
   * The folder of the cache files (default: `EFFECT_MCP_CODE_CACHE` from the environment, else this user's own in the
   * OS's temp folder, `effect-mcp-code-cache-<uid>`).
   */
  readonly directory?: string | undefined
  /**
   * How long after the program starts its compiled code is saved, in ms (default 1,000): what V8 compiled by then, the
   * start-up and the first requests, is what later runs skip. A program that exits sooner saves it as it exits.
   */
  readonly saveAfter?: number | undefined
  /** No cache at all (default: false; true when `EFFECT_MCP_DISABLE_CODE_CACHE=1` is in the environment). */
  readonly disabled?: boolean | undefined
}

/**
 * What a run did with the cache: used a saved one, will save one, or ran without (no private folder, disabled, or a
 * program with a dynamic `import()`).
 */
export type Outcome = "cached" | "saving" | "uncached"

// A dynamic `import()` in a script needs a loader from `vm`: on Node 20 and 22 the one that needs no flag is
// experimental (it warns), and V8 drops it from code read from a cache, so that the import fails. A bundle has none
// (esbuild turns an `import()` of a bundled module into a `require`); a program that has one is loaded as Node loads
// CommonJS, uncached. A match inside a string only costs the cache.
const hasDynamicImport = (source: string): boolean => /\bimport\s*\(/.test(source)

// CommonJS's own wrapper (node:module's `wrap`, which its ES module namespace does not export).
const wrapperHead = "(function (exports, require, module, __filename, __dirname) { "
const wrapperTail = "\n});"

/** Runs the CommonJS file `file` (a path or a `file:` URL) as Node would, compiled through the code cache. */
export const run = (file: string | URL, options: Options = {}): Outcome => {
  const filename = typeof file === "string" ? Path.resolve(file) : Url.fileURLToPath(file)
  // Hashed as bytes for the cache's key: hashing the decoded text re-encodes it first (about 4 ms of a 767 KB bundle's
  // start, the start-up workload's rows).
  const bytes = Fs.readFileSync(filename)
  const source = bytes.toString("utf8")
  const require = Module.createRequire(filename)
  if (hasDynamicImport(source)) {
    require(filename)
    return "uncached"
  }
  const disabled = options.disabled ?? process.env.EFFECT_MCP_DISABLE_CODE_CACHE === "1"
  const directory = options.directory ?? (process.env.EFFECT_MCP_CODE_CACHE || CacheDirectory.defaultDirectory())
  const cacheFile = !disabled && CacheDirectory.ensurePrivate(directory)
    ? CacheDirectory.cacheFile(directory, filename, bytes)
    : undefined
  const cachedData = cacheFile === undefined ? undefined : CacheDirectory.read(cacheFile)
  const script = new Vm.Script(`${wrapperHead}${source}${wrapperTail}`, {
    filename,
    ...(cachedData === undefined ? {} : { cachedData })
  })
  const outcome: Outcome = cacheFile === undefined
    ? "uncached"
    : cachedData !== undefined && !script.cachedDataRejected
    ? "cached"
    : "saving"
  if (outcome === "saving" && cacheFile !== undefined) {
    let saved = false
    const save = () => {
      if (saved) return
      saved = true
      process.removeListener("exit", save)
      CacheDirectory.write(cacheFile, script.createCachedData())
    }
    setTimeout(save, options.saveAfter ?? 1_000).unref()
    process.once("exit", save)
  }
  const module = { exports: {}, filename, id: filename, loaded: false }
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: unknown,
    __filename: string,
    __dirname: string
  ) => void
  wrapper.call(module.exports, module.exports, require, module, filename, Path.dirname(filename))
  return outcome
}
