/** Rendering for people: aligned sections, content blocks, a progress bar. */
import type { Mcp } from "@effect-mcp/schema"
import { styled as tty } from "./terminal.js"

/** Bold text when stdout is a terminal. */
export const bold = (s: string): string => (tty(process.stdout) ? `\x1b[1m${s}\x1b[22m` : s)

/** Dim text when stdout is a terminal. */
export const dim = (s: string): string => (tty(process.stdout) ? `\x1b[2m${s}\x1b[22m` : s)

/** Text marked as an error (bold red) when stderr is a terminal; on stderr it reads "error: ..." either way. */
export const errorMark = (
  s: string
): string => (tty(process.stderr) ? `\x1b[1;31merror:\x1b[22;39m ${s}` : `error: ${s}`)

/** A titled section: the title, then its lines indented (or "(none)"). */
export const section = (title: string, lines: ReadonlyArray<string>): string =>
  `${bold(title)}\n${lines.length === 0 ? `  ${dim("(none)")}` : lines.map((l) => `  ${l}`).join("\n")}\n`

/** Rows as aligned columns. */
export const columns = (rows: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  "))
}

/** One line of a JSON Schema's properties: `name: type` (`?` when optional). */
export const signature = (schema: { readonly properties?: unknown; readonly required?: unknown }): string => {
  const properties = (schema.properties ?? {}) as Record<string, { readonly type?: unknown }>
  const required = new Set(Array.isArray(schema.required) ? (schema.required as Array<string>) : [])
  const fields = Object.entries(properties).map(([name, p]) =>
    `${name}${required.has(name) ? "" : "?"}: ${Array.isArray(p.type) ? p.type.join("|") : String(p.type ?? "any")}`
  )
  return `(${fields.join(", ")})`
}

/** One content block for people. */
export const block = (content: Mcp.ContentBlock | Mcp.SamplingMessageContentBlock): string => {
  switch (content.type) {
    case "text":
      return content.text
    case "image":
    case "audio":
      return dim(`[${content.type} ${content.mimeType}, ${Math.round((content.data.length * 3) / 4)} bytes]`)
    case "resource":
      return "text" in content.resource
        ? `${dim(`[resource ${content.resource.uri}]`)}\n${content.resource.text}`
        : dim(`[resource ${content.resource.uri}, binary]`)
    case "resource_link":
      return dim(`[link ${content.uri}${content.name ? ` (${content.name})` : ""}]`)
    default:
      return dim(`[${content.type}]`)
  }
}

/** The progress bar line. */
export const progressBar = (progress: number, total: number | undefined, message: string | undefined): string => {
  const width = 30
  const text = message === undefined ? "" : ` ${message}`
  if (total === undefined || total <= 0) return `[${"?".repeat(3)}] ${progress}${text}`
  const filled = Math.max(0, Math.min(width, Math.round((progress / total) * width)))
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${progress}/${total}${text}`
}

/** Draws the progress bar on stderr: in place on a terminal, one line per update otherwise. */
export const drawProgress = (line: string): void => {
  process.stderr.write(tty(process.stderr) ? `\r\x1b[2K${line}` : `${line}\n`)
}

/** Ends an in-place progress bar. */
export const endProgress = (drawn: boolean): void => {
  if (drawn && tty(process.stderr)) process.stderr.write("\n")
}
