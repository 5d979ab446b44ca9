/**
 * Reading a `WWW-Authenticate` header (RFC 9110 §11.6.1, RFC 6750 §3): the parameters of its Bearer challenge, among
 * any others. A header that does not parse is no challenge at all, never a failure.
 */

/** What a Bearer challenge says. */
export interface BearerChallenge {
  /** The RFC 9728 metadata URL. */
  readonly resourceMetadata?: string | undefined
  /** The scopes the resource asks for. */
  readonly scope?: string | undefined
  /** `invalid_token`, `insufficient_scope`, ... */
  readonly error?: string | undefined
}

const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/

/** The Bearer challenge of a `WWW-Authenticate` header, if it has one. */
export const parse = (header: string | undefined): BearerChallenge | undefined => {
  if (header === undefined || header.length > 8192) return undefined
  let rest = header
  let inBearer = false
  let found = false
  const params: Record<string, string> = {}
  const skip = () => {
    rest = rest.replace(/^[\s,]+/, "")
  }
  while (true) {
    skip()
    if (rest === "") break
    const name = token.exec(rest)?.[0]
    if (name === undefined) break
    rest = rest.slice(name.length)
    const afterSpaces = rest.replace(/^\s*/, "")
    if (afterSpaces.startsWith("=") && !/^=+\s*(,|$)/.test(afterSpaces)) {
      // an auth-param of the current challenge
      rest = afterSpaces.slice(1).replace(/^\s*/, "")
      let value: string
      if (rest.startsWith("\"")) {
        let i = 1
        value = ""
        while (i < rest.length && rest[i] !== "\"") {
          if (rest[i] === "\\" && i + 1 < rest.length) i++
          value += rest[i]
          i++
        }
        rest = rest.slice(i + 1)
      } else {
        value = token.exec(rest)?.[0] ?? ""
        rest = rest.slice(value.length)
      }
      if (inBearer) params[name.toLowerCase()] = value
    } else {
      // a new challenge's scheme (a token68 after it is skipped)
      inBearer = name.toLowerCase() === "bearer"
      if (inBearer) found = true
      rest = afterSpaces.replace(/^[A-Za-z0-9\-._~+/]+=*\s*(?=,|$)/, "")
    }
  }
  if (!found) return undefined
  return {
    resourceMetadata: params["resource_metadata"],
    scope: params["scope"],
    error: params["error"]
  }
}
