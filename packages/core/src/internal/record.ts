/**
 * The schema's check that a value is a plain object (`Json.isRecord` of @effect-mcp/schema), under the name engine.ts
 * imports it by. New code imports `Json` from @effect-mcp/schema.
 */
import { Json } from "@effect-mcp/schema"

/** Whether a value is a plain object (not null, not an array): `Json.isRecord`. */
export const isRecord = Json.isRecord
