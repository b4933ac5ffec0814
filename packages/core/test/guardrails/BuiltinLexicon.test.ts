import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { builtinLexicon, compileLexicon } from "@herald/core"
import { buildLexicon, classLabels, lexiconModule, readLabelled } from "./LexiconBuilder.js"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const build = readLabelled(here("./labelled/build.tsv"))
const heldOut = readLabelled(here("./labelled/heldout.tsv"))
const modulePath = here("../../src/guardrails/BuiltinLexicon.ts")

describe("the built-in lexicon", () => {
  it("is the one learned from the build half (regenerate with HERALD_REGENERATE=1)", () => {
    const generated = lexiconModule(buildLexicon(build))
    if (process.env.HERALD_REGENERATE === "1") writeFileSync(modulePath, generated)
    expect(readFileSync(modulePath, "utf8")).toBe(generated)
  })

  it("keeps the halves apart: no caption of the held-out half is in the build half", () => {
    const built = new Set(build.map(({ text }) => text.toLowerCase()))
    expect(heldOut.filter(({ text }) => built.has(text.toLowerCase()))).toEqual([])
    expect(build.length).toBeGreaterThan(500)
    expect(heldOut.length).toBeGreaterThan(500)
  })

  const target = { precision: 0.9, recall: 0.8 }

  it("reaches precision ≥ 0.9 and recall ≥ 0.8 for every topic and tone on the held-out half, and prints them", () => {
    const lexicon = compileLexicon(builtinLexicon)
    const scored = heldOut.map((row) => ({ row, scores: lexicon.score(row.text) }))
    const classes: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ...Object.entries(classLabels.topics),
      ...Object.entries(classLabels.tones)
    ]
    const figures = classes.map(([name, labels]) => {
      const positive = scored.filter(({ row }) => labels.includes(row.label))
      const predicted = scored.filter(({ scores }) => scores.get(name)!.score >= 0.5)
      const truePositives = predicted.filter(({ row }) => labels.includes(row.label)).length
      return {
        name,
        positives: positive.length,
        precision: predicted.length === 0 ? 0 : truePositives / predicted.length,
        recall: truePositives / positive.length
      }
    })
    console.log(
      `built-in classifier on the held-out half (${heldOut.length} captions):\n` +
        figures.map(({ name, positives, precision, recall }) =>
          `  ${name.padEnd(13)} precision ${precision.toFixed(3)}  recall ${recall.toFixed(3)}  (${positives} positives)`
        ).join("\n")
    )
    for (const { name, precision, recall } of figures) {
      expect({ name, precision: precision >= target.precision, recall: recall >= target.recall }).toEqual({ name, precision: true, recall: true })
    }
  })
})
