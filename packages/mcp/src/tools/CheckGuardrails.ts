import { checkCaption, GuardrailVerdict } from "@herald/core"
import { Effect, Schema } from "effect"
import { refuse, tool } from "../Tool.js"

/** POST /guardrails/check. */
export const checkGuardrails = tool({
  name: "check_guardrails",
  title: "Check a caption against the guardrails",
  description:
    "A dry run: the verdict create_post would get for this caption (with the project signature appended), without " +
    "creating anything. allowed false lists violations ({ rule, detail }) to rewrite against; rules_checked empty means " +
    "the project has no guardrails; rules_skipped are rules that could not answer, wholly or in part (they fail open), and skipped says why. Needs posts:read.",
  input: Schema.Struct({
    // Descriptions go on the fields, not their types: a type's description becomes its refusal message.
    caption: Schema.propertySignature(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10000)).annotations({
      examples: ["Our new release is out today!"]
    })).annotations({ description: "The text to check, 1 to 10000 characters." })
  }),
  output: GuardrailVerdict,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (principal, input) => Effect.catchAll(checkCaption(principal, input.caption), refuse),
  text: (verdict) =>
    verdict.allowed
      ? "Allowed."
      : `Blocked: ${verdict.violations.map((v) => `${v.rule}: ${v.detail}`).join("; ")}`
})
