// toolgraph/ai-sdk: the AI SDK's prepareStep offers each step only the tools toolgraph picks, then the run is
// recorded so the next runs learn from it. Needs `ai` (6.x).
//   node examples/ai-sdk-prepare-step.mjs                 (offline: the AI SDK's mock model calls two tools)
// With a real model, pass any AI SDK model (e.g. from @ai-sdk/openai) instead of the mock.
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { toolgraphSteps } from "toolgraph/ai-sdk";
import { openExampleToolgraph, PARAMETERS, printPicked, TOOLS } from "./catalog.mjs";

const tg = await openExampleToolgraph();
try {
  const tools = Object.fromEntries(TOOLS.map((t) => [t.id.replace(".", "__"), tool({ description: t.description, inputSchema: jsonSchema(PARAMETERS), execute: async () => ({ ok: true }) })]));
  const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
  const callTool = (toolName) => ({ content: [{ type: "tool-call", toolCallId: toolName, toolName, input: "{}" }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] });
  const model = new MockLanguageModelV3({
    doGenerate: [callTool("git__commit"), callTool("git__push"), { content: [{ type: "text", text: "Pushed." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] }],
  });

  const steps = toolgraphSteps(tg, { tools, k: 3 });
  const result = await generateText({ model, tools, prompt: "ship my fix for review", stopWhen: stepCountIs(5), prepareStep: steps.prepareStep, onFinish: steps.onFinish });

  for (const [i, s] of steps.selections.entries()) {
    console.log(`step ${i} (${s.source}${s.abstained ? ", gate abstained" : ""}): ${s.names.join(", ")}`);
    printPicked(s);
  }
  console.log(`model answered: ${result.text}; run recorded as ${steps.runId} (${(await tg.stats()).executions} executions now)`);
} finally {
  await tg.close();
}
