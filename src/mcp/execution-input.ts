/**
 * The execution record as an MCP tool argument: the shape of src/formats/schemas.ts `executionSchema`
 * with dates as ISO strings or epoch milliseconds (a JSON Schema cannot describe a Date object). The MCP
 * SDK checks arguments against this; the service then validates them with `executionSchema` itself, so
 * the two cannot disagree on what is stored.
 */
import { z } from "zod";

const id = z.string().min(1).max(256);
const date = z.union([z.string().min(1), z.number()]).describe("ISO 8601 date-time or epoch milliseconds");
const stepIndex = z.number().int().nonnegative();

export const executionArgs = z
  .object({
    id: id.describe("Unique id of this execution (recording the same id twice is a no-op)"),
    user: id.optional().describe("Who ran it (their history moves future thresholds)"),
    intent: z.string().max(32_768).optional().describe("What the workflow was for, in words"),
    capability: id.optional().describe("The capability (known workflow) it carried out, if any"),
    startedAt: date.describe("When the workflow started: ISO 8601 date-time or epoch milliseconds"),
    success: z.boolean().describe("Whether the workflow as a whole succeeded"),
    steps: z
      .array(
        z
          .object({
            tool: id.describe("Tool id as in the catalog"),
            parent: stepIndex.optional().describe("Index of the enclosing step (nested calls)"),
            dependsOn: z.array(stepIndex).optional().describe("Indices of earlier steps whose output this step used"),
            success: z.boolean().optional().describe("Whether this call succeeded (default true)"),
            durationMs: z.number().nonnegative().optional().describe("How long the call took (ms)"),
            at: date.optional().describe("When the call started: ISO 8601 date-time or epoch milliseconds"),
          })
          .strict(),
      )
      .min(1)
      .max(10_000)
      .describe("The tool calls in the order they ran"),
  })
  .strict();
