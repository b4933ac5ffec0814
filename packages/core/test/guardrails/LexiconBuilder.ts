/**
 * How the built-in lexicon is learned from the labelled set (labelled/build.tsv only): per class,
 * a logistic regression over the distinct word stems of each caption (function words left out),
 * trained by a fixed number of passes of gradient descent in the file's order, so the result is
 * the same on every run; then a decision threshold chosen by 5-fold cross-validation inside the
 * build half. The held-out half (labelled/heldout.tsv) is never read here.
 */
import { readFileSync } from "node:fs"
import { type Lexicon, type LexiconClass, wordsOf } from "@herald/core"

export interface Labelled {
  readonly label: string
  readonly text: string
}

export const readLabelled = (path: string): ReadonlyArray<Labelled> =>
  readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => {
    const [label = "", text = ""] = line.split("\t")
    return { label, text }
  })

/** Which labels each class counts as its positives; a tone's class holds the texts that miss it. */
export const classLabels = {
  topics: {
    politics: ["politics"],
    religion: ["religion"],
    gambling: ["gambling"],
    violence: ["violence"]
  },
  tones: {
    // Hostility misses a professional tone as much as slang and swearing do.
    professional: ["unprofessional", "unfriendly"],
    friendly: ["unfriendly"]
  }
} as const

// Function words say nothing about a topic or a tone; learned from a few hundred captions they
// would only pick up the style of whoever wrote the set. "you" and "u" are kept: they mark tone.
const stopWords = new Set(
  ("a an the and or but if of to in on at by for with from as is are was were be been being am it its this that " +
    "these those there here we our us i me my he him his she her they them their what which who whom whose when " +
    "where why how all any each few more most other some such no nor not only own same so than too very s t can " +
    "will just do does did has have had into about over after before up down out off again then once")
    .split(" ")
)
const stemsOf = (text: string): ReadonlyArray<string> =>
  [...new Set(wordsOf(text).filter(({ word }) => !stopWords.has(word)).map(({ stem }) => stem))]

interface Example {
  readonly stems: ReadonlyArray<string>
  readonly positive: boolean
}

const passes = 60
const learningRate = 0.5
const l2 = 0.001

/** Weights and bias of a logistic regression; positives weighted up to balance the classes. */
const train = (examples: ReadonlyArray<Example>): { readonly bias: number; readonly weights: Map<string, number> } => {
  const positives = examples.filter(({ positive }) => positive).length
  const positiveWeight = Math.sqrt((examples.length - positives) / positives)
  const weights = new Map<string, number>()
  let bias = 0
  for (let pass = 0; pass < passes; pass++) {
    for (const { positive, stems } of examples) {
      let sum = bias
      for (const stem of stems) sum += weights.get(stem) ?? 0
      const error = (1 / (1 + Math.exp(-sum)) - (positive ? 1 : 0)) * (positive ? positiveWeight : 1)
      bias -= learningRate * error
      for (const stem of stems) {
        const weight = weights.get(stem) ?? 0
        weights.set(stem, weight - learningRate * (error + l2 * weight))
      }
    }
  }
  return { bias, weights }
}

const sumOf = (model: ReturnType<typeof train>, stems: ReadonlyArray<string>): number =>
  stems.reduce((sum, stem) => sum + (model.weights.get(stem) ?? 0), model.bias)

const targetPrecision = 0.91

/**
 * The lowest threshold over out-of-fold sums that keeps precision at the target (the most recall
 * it allows); when none does, the one with the best F1.
 */
const chooseThreshold = (scored: ReadonlyArray<readonly [number, boolean]>): number => {
  const ranked = [...scored].sort((a, b) => b[0] - a[0])
  const positives = ranked.filter(([, positive]) => positive).length
  let truePositives = 0
  let precise: number | null = null
  let best = { f1: -1, threshold: 0 }
  ranked.forEach(([sum, positive], index) => {
    if (positive) truePositives++
    const next = ranked[index + 1]
    if (next !== undefined && next[0] === sum) return
    if (truePositives / (index + 1) >= targetPrecision) precise = sum
    const f1 = (2 * truePositives) / (index + 1 + positives)
    if (f1 > best.f1) best = { f1, threshold: sum }
  })
  return precise ?? best.threshold
}

const folds = 5
const rounded = (value: number): number => Math.round(value * 1000) / 1000

const learnClass = (rows: ReadonlyArray<Labelled>, labels: ReadonlyArray<string>): LexiconClass => {
  const examples = rows.map((row): Example => ({ stems: stemsOf(row.text), positive: labels.includes(row.label) }))
  // Each example's sum comes from a model trained without it (fold k holds every k-th example).
  const outOfFold = Array.from({ length: folds }, (_, fold) => {
    const model = train(examples.filter((_, index) => index % folds !== fold))
    return examples
      .filter((_, index) => index % folds === fold)
      .map((example): readonly [number, boolean] => [sumOf(model, example.stems), example.positive])
  }).flat()
  const threshold = chooseThreshold(outOfFold)
  const model = train(examples)
  const weights = [...model.weights].filter(([, weight]) => Math.abs(weight) >= 0.001).sort(([a], [b]) => (a < b ? -1 : 1))
  return { bias: rounded(model.bias - threshold), weights: Object.fromEntries(weights.map(([stem, weight]) => [stem, rounded(weight)])) }
}

const mapValues = <A, B>(record: Readonly<Record<string, A>>, f: (value: A) => B): Record<string, B> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]))

export const buildLexicon = (build: ReadonlyArray<Labelled>): Lexicon => ({
  topics: mapValues(classLabels.topics, (labels) => learnClass(build, labels)),
  tones: mapValues(classLabels.tones, (labels) => learnClass(build, labels))
})

/** The generated module holding the lexicon (packages/core/src/guardrails/BuiltinLexicon.ts). */
export const lexiconModule = (lexicon: Lexicon): string =>
  [
    "// Generated from packages/core/test/guardrails/labelled/build.tsv by LexiconBuilder.ts:",
    "// HERALD_REGENERATE=1 npx vitest run packages/core/test/guardrails/BuiltinLexicon.test.ts",
    "import type { Lexicon } from \"./Lexicon.js\"",
    "",
    `export const builtinLexicon: Lexicon = ${JSON.stringify(lexicon, null, 2)}`,
    ""
  ].join("\n")
