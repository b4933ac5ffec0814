import { Either } from "effect"

/** argv split into positional words and --flags (`--name value` or `--name=value`; a bare `--name` is "true"). */
export interface ParsedArgs {
  readonly positionals: ReadonlyArray<string>
  readonly flags: ReadonlyMap<string, string>
}

export const parseArgs = (argv: ReadonlyArray<string>): Either.Either<ParsedArgs, string> => {
  const positionals: Array<string> = []
  const flags = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    if (word === "--") {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (!word.startsWith("--")) {
      positionals.push(word)
      continue
    }
    const eq = word.indexOf("=")
    const name = word.slice(2, eq === -1 ? undefined : eq)
    if (name === "") return Either.left(`malformed option ${JSON.stringify(word)}`)
    if (flags.has(name)) return Either.left(`--${name} is given twice`)
    if (eq !== -1) flags.set(name, word.slice(eq + 1))
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith("--")) flags.set(name, argv[++i]!)
    else flags.set(name, "true")
  }
  return Either.right({ positionals, flags })
}

/** A comma-separated option as a list (blank items dropped). */
export const list = (value: string): ReadonlyArray<string> =>
  value.split(",").map((item) => item.trim()).filter((item) => item !== "")
