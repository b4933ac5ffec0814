import { Schema } from "effect"

/**
 * An instant in a reply: ISO 8601 in UTC, as DateTime.formatIso writes it. Documented as
 * `format: date-time`; the annotation sits on a refinement that accepts every string because
 * JSON Schema generation drops a field's own description beside a plain string's jsonSchema, and
 * checking the form here would turn a reply's odd timestamp into a 500.
 */
export const Timestamp = Schema.String.pipe(Schema.filter(() => true, { jsonSchema: { format: "date-time" } }))
