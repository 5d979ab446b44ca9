/** The interop package: the report its tests write to docs/interop.md. */
export * as Report from "./Report.js"
