/**
 * RFC 6570 URI templates: matching a URI against a template (to read a templated resource) and
 * expanding a template. Supports every operator of levels 1–3 (`{var}`, `{+var}`, `{#var}`,
 * `{.var}`, `{/var}`, `{;var}`, `{?var}`, `{&var}`), with comma-separated variable lists.
 */

type Part = { readonly literal: string } | { readonly operator: string; readonly names: ReadonlyArray<string> }

/** A parsed template. */
export interface UriTemplate {
  readonly source: string
  readonly variables: ReadonlyArray<string>
  /** The variables of `uri` when it matches the template. */
  readonly match: (uri: string) => Record<string, string> | undefined
  /** The URI for the given variables. */
  readonly expand: (values: Readonly<Record<string, string>>) => string
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const parse = (source: string): ReadonlyArray<Part> => {
  const parts: Array<Part> = []
  const re = /\{([+#./;?&]?)([^}]*)\}/g
  let last = 0
  for (let m = re.exec(source); m !== null; m = re.exec(source)) {
    if (m.index > last) parts.push({ literal: source.slice(last, m.index) })
    parts.push({ operator: m[1]!, names: m[2]!.split(",").map((n) => n.replace(/[*]$|:\d+$/, "").trim()) })
    last = m.index + m[0].length
  }
  if (last < source.length) parts.push({ literal: source.slice(last) })
  return parts
}

const valueClass = (operator: string) => (operator === "+" || operator === "#" ? "[^?#]" : "[^/?#&,;.]")

const regexOf = (parts: ReadonlyArray<Part>): RegExp => {
  let pattern = "^"
  for (const part of parts) {
    if ("literal" in part) {
      pattern += escape(part.literal)
      continue
    }
    const v = valueClass(part.operator)
    switch (part.operator) {
      case "?":
      case "&":
        pattern += `(?:[${escape(part.operator)}]([^#]*))?`
        break
      case ";":
        pattern += `((?:;[^/?#]*)*)`
        break
      default: {
        const lead = part.operator === "" || part.operator === "+" ? "" : escape(part.operator)
        const sep = part.operator === "/" ? "/" : part.operator === "." ? "\\." : ","
        pattern += lead + part.names.map(() => `(${v}*)`).join(sep)
      }
    }
  }
  return new RegExp(`${pattern}$`)
}

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

const encode = (s: string, reserved: boolean) =>
  reserved ? encodeURI(s).replace(/%25([0-9A-Fa-f]{2})/g, "%$1") : encodeURIComponent(s)

/** Parses a template. */
export const make = (source: string): UriTemplate => {
  const parts = parse(source)
  const regex = regexOf(parts)
  const variables = parts.flatMap((p) => ("names" in p ? p.names : []))
  const match = (uri: string) => {
    const m = regex.exec(uri)
    if (m === null) return undefined
    const out: Record<string, string> = {}
    let group = 1
    for (const part of parts) {
      if ("literal" in part) continue
      if (part.operator === "?" || part.operator === "&" || part.operator === ";") {
        const text = m[group++] ?? ""
        for (const pair of text.split(part.operator === ";" ? ";" : "&")) {
          if (pair === "") continue
          const [k, v = ""] = pair.split("=")
          if (k !== undefined && part.names.includes(k)) out[k] = decode(v)
        }
        continue
      }
      for (const name of part.names) {
        const value = m[group++]
        if (value !== undefined && value !== "") out[name] = decode(value)
      }
    }
    return out
  }
  const expand = (values: Readonly<Record<string, string>>) =>
    parts.map((part) => {
      if ("literal" in part) return part.literal
      const present = part.names.filter((n) => values[n] !== undefined)
      if (present.length === 0) return ""
      const reserved = part.operator === "+" || part.operator === "#"
      const enc = (n: string) => encode(values[n]!, reserved)
      switch (part.operator) {
        case "?":
        case "&":
          return part.operator + present.map((n) => `${n}=${enc(n)}`).join("&")
        case ";":
          return present.map((n) => `;${n}=${enc(n)}`).join("")
        case "/":
          return present.map((n) => `/${enc(n)}`).join("")
        case ".":
          return present.map((n) => `.${enc(n)}`).join("")
        case "#":
          return `#${present.map(enc).join(",")}`
        default:
          return present.map(enc).join(",")
      }
    }).join("")
  return { source, variables, match, expand }
}
