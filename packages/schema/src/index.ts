export * as Json from "./Json.js"
