import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Option } from "effect"

/**
 * A refusal to print without a stack: bad usage (exit 2) or a failed operation (exit 1).
 * @effect/cli reports its own parse errors (also exit 2); this one is for what only the command
 * itself can judge (a missing admin token, a server's refusal).
 */
export class CliFailure {
  readonly _tag = "CliFailure"
  constructor(readonly message: string, readonly exitCode: 1 | 2) {}
}

export const usageError = (message: string) => Effect.fail(new CliFailure(message, 2))

/** A comma-separated option as a list (blank items dropped). */
export const list = (value: string): ReadonlyArray<string> =>
  value.split(",").map((item) => item.trim()).filter((item) => item !== "")

const refuse = (message: string) => Effect.fail(ValidationError.invalidValue(HelpDoc.p(message)))

/** Digits only: a sign, a decimal point or an exponent is a typo here, not a number to round. */
export const wholeNumber = (name: string, text: string): Effect.Effect<number, ValidationError.ValidationError> =>
  /^[0-9]+$/.test(text) ? Effect.succeed(Number(text)) : refuse(`--${name} must be a whole number, got ${JSON.stringify(text)}`)

/** An optional free-text option. */
export const textOption = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.optional)

/** An optional comma-separated list option (`--kinds a,b`). */
export const listOption = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.map(list), Options.optional)

/** An optional whole-number option. */
export const countOption = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.mapEffect((text) => wholeNumber(name, text)), Options.optional)

/** An optional whole-number option where `none` clears the value (sent as null). */
export const countOrNoneOption = (name: string, description: string) =>
  Options.text(name).pipe(
    Options.withDescription(`${description}; none clears it`),
    Options.mapEffect((text): Effect.Effect<number | null, ValidationError.ValidationError> => text === "none" ? Effect.succeed(null) : wholeNumber(name, text)),
    Options.optional
  )

/** The options given, as body fields (field name: value); absent ones are left out. */
export const presentFields = (options: Readonly<Record<string, Option.Option<unknown>>>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(options).flatMap(([field, value]) => Option.isSome(value) ? [[field, value.value]] : []))
