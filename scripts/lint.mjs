// Lint: the rules the type checker cannot see, run by `pnpm test` (and `node scripts/lint.mjs` alone).
// - Library sources never write to stdout (the stdio transport owns it): `console.*` is refused in packages/*/src.
// - Package boundaries (DESIGN.md's package table): an import never runs up the table, never reaches into another
//   package's internals (`@effect-mcp/x/internal/…`, or a relative path out of its package), and nothing in
//   packages/, examples/ or scratchpad/ imports Effect's internal modules (`effect/internal/…`).
// - Every package's `exports` keeps `./internal/*` private.
// Its tests are scripts/test/lint.test.mjs.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { posix } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** Which packages each package may import directly: DESIGN.md's package table, column "depends on". */
export const dependsOn = {
  schema: [],
  core: ["schema"],
  http: ["core"],
  node: ["core", "http"],
  auth: ["core", "http"],
  redis: ["core", "http"],
  ai: ["core", "host"],
  host: ["core", "node", "http"],
  cli: ["schema", "core", "http", "node", "auth", "redis", "ai", "host"]
}

/** The packages `pkg` may import: itself and everything below it in the table (what it depends on, transitively). */
export const mayImport = (pkg) => {
  const seen = new Set([pkg])
  const visit = (p) => {
    for (const q of dependsOn[p] ?? []) {
      if (!seen.has(q)) {
        seen.add(q)
        visit(q)
      }
    }
  }
  visit(pkg)
  return seen
}

const effectInternal = /^(?:effect|@effect\/[\w.-]+)\/(?:dist\/[^/]+\/)?internal(?:\/|$)/
const ours = /^@effect-mcp\/([^/]+)(\/.*)?$/

/**
 * Why importing `specifier` from `file` (a path relative to the repository root, with `/`) breaks a package
 * boundary, or undefined when it does not.
 */
export const checkImport = (file, specifier) => {
  const [top, name, area] = file.split("/")
  const inPackage = top === "packages" ? name : undefined
  if (effectInternal.test(specifier)) return `imports Effect's internals (${specifier}); use its public modules`
  const named = ours.exec(specifier)
  if (named !== null) {
    const [, target, subpath = ""] = named
    if (subpath.split("/").includes("internal")) {
      return `reaches into @effect-mcp/${target}'s internals (${specifier}); import its public entry`
    }
    if (inPackage === undefined || target === inPackage) return undefined
    if (dependsOn[inPackage] === undefined) {
      return `packages/${inPackage} is not in the package table (dependsOn in scripts/lint.mjs, from DESIGN.md)`
    }
    const allowed = mayImport(inPackage)
    if (allowed.has(target)) return undefined
    const below = [...allowed].filter((p) => p !== inPackage).map((p) => `@effect-mcp/${p}`).join(", ")
    return `runs up the package table: ${inPackage} may import ${below || "none of ours"}, not ${specifier}`
  }
  if (!specifier.startsWith(".")) return undefined
  const target = posix.normalize(posix.join(posix.dirname(file), specifier))
  const modules = target.indexOf("node_modules/")
  if (modules >= 0 && effectInternal.test(target.slice(modules + "node_modules/".length))) {
    return `imports Effect's internals (${specifier}); use its public modules`
  }
  const owner = target.split("/").slice(0, 2).join("/")
  const reachesInto = `reaches into ${owner} by a path (${specifier}); import it by name`
  if (inPackage !== undefined) {
    if (target.startsWith(`packages/${inPackage}/`)) return undefined
    if (area === "src") {
      return `leaves packages/${inPackage} by a relative path (${specifier}); import a package by name`
    }
    // Tests and configs may use the repository's tooling (vitest.shared.ts) and borrow another package's test
    // fixtures (packages/x/test/…), never its sources or build.
    if (!target.startsWith("packages/") || /^packages\/[^/]+\/test\//.test(target)) return undefined
    return reachesInto
  }
  return target.startsWith("packages/") ? reachesInto : undefined
}

const importForms = [
  /^[ \t]*(?:import|export)\b[^;"'`=()]*?\bfrom\s*["']([^"']+)["']/gm, // import … from "x", export … from "x"
  /^[ \t]*import\s*["']([^"']+)["']/gm, // import "x"
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, // import("x")
  /\bimport\s*\(\s*new URL\(\s*["']([^"']+)["']/g, // import(new URL("x", import.meta.url).href)
  /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g // require("x")
]

/** The module specifiers a source file imports, each with its line (1-based). */
export const importsOf = (source) => {
  const found = []
  for (const form of importForms) {
    for (const match of source.matchAll(form)) {
      const at = match.index + match[0].lastIndexOf(match[1])
      found.push({ specifier: match[1], line: source.slice(0, at).split("\n").length })
    }
  }
  return found.sort((a, b) => a.line - b.line)
}

/** Every offence of one source file (`file` relative to the repository root, with `/`), as `file:line: why`. */
export const lintSource = (file, source) => {
  const offences = []
  if (/^packages\/[^/]+\/src\//.test(file)) {
    source.split("\n").forEach((line, i) => {
      if (/\bconsole\.[a-z]+\s*\(/.test(line)) {
        offences.push(`${file}:${i + 1}: console.* (logs go through Effect's logger to stderr): ${line.trim()}`)
      }
    })
  }
  for (const { line, specifier } of importsOf(source)) {
    const why = checkImport(file, specifier)
    if (why !== undefined) offences.push(`${file}:${line}: ${why}`)
  }
  return offences
}

/** Why a package's `exports` map would expose its `./internal/*` modules, if it would. */
export const checkExports = (pkg, exports) => {
  if (exports === undefined || typeof exports === "string") return []
  const offences = []
  for (const [key, value] of Object.entries(exports)) {
    if (key.startsWith("./internal") && value !== null) offences.push(`packages/${pkg}: exports exposes ${key}`)
  }
  const wildcard = Object.keys(exports).some((key) => key.includes("*") && !key.startsWith("./internal"))
  if (wildcard && exports["./internal/*"] !== null) {
    offences.push(`packages/${pkg}: exports has a wildcard but no "./internal/*": null`)
  }
  return offences
}

const sourceFile = /\.(?:[cm]?[jt]s|tsx)$/
const skipped = new Set(["node_modules", "dist"])

/** Every offence in the repository at `root`: packages/, examples/ and scratchpad/, and the packages' exports. */
export const lintTree = (root) => {
  const offences = []
  const walk = (dir) => {
    let names
    try {
      names = readdirSync(posix.join(root, dir))
    } catch {
      return
    }
    for (const name of names) {
      if (skipped.has(name) || name.startsWith(".")) continue
      const path = posix.join(dir, name)
      if (statSync(posix.join(root, path)).isDirectory()) walk(path)
      else if (sourceFile.test(name) && !name.endsWith(".d.ts")) {
        offences.push(...lintSource(path, readFileSync(posix.join(root, path), "utf8")))
      }
    }
  }
  for (const top of ["packages", "examples", "scratchpad"]) walk(top)
  for (const pkg of readdirSync(posix.join(root, "packages"))) {
    let manifest
    try {
      manifest = JSON.parse(readFileSync(posix.join(root, "packages", pkg, "package.json"), "utf8"))
    } catch {
      continue
    }
    offences.push(...checkExports(pkg, manifest.exports))
  }
  return offences
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const offences = lintTree(fileURLToPath(new URL("..", import.meta.url)))
  if (offences.length > 0) {
    process.stderr.write(`lint: ${offences.length} offence(s):\n${offences.join("\n")}\n`)
    process.exit(1)
  }
  process.stderr.write("lint: no console.* in packages/*/src; package boundaries and exports hold\n")
}
