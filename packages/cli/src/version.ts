/** The version of the effect-mcp command, printed by `--version` (kept equal to package.json's by a test). */
export const version = "0.1.0"
