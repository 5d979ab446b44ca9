/** The revisions found in ../shared/spec, oldest first. */
export declare const revisions: ReadonlyArray<string>
/** Every generated module, by file name. */
export declare const generate: () => Record<string, string>
