import * as V8 from "node:v8"

// V8 grows the young generation (the two semi-spaces new objects are made in) from 1 MB up to
// 16 MB each while many objects survive their first collection, as they do while Herald starts
// (modules, layers, the API's schemas): the 32 MB then stayed resident in an idle server, a sixth
// of its memory. Held at its initial size through the start, it grows again once the process
// serves, when a load makes survivors enough to need it (bench/README.md, Footprint). The growth
// factor is read at each collection, so setting it after the process started takes effect.

/** Keeps the young generation at its initial size: bin.ts, before Herald's modules are evaluated. */
export const holdYoungGeneration = (): void => V8.setFlagsFromString("--semi-space-growth-factor=1")

/** Lets it grow as V8 does by default (by a factor of 2): `herald serve` and `herald work`, once started. */
export const releaseYoungGeneration = (): void => V8.setFlagsFromString("--semi-space-growth-factor=2")
