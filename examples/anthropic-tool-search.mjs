// toolgraph/anthropic: Claude searches deferred tools through toolgraph and gets tool_reference blocks back.
//   node examples/anthropic-tool-search.mjs                  (offline: a scripted tool_search call)
//   ANTHROPIC_API_KEY=… ANTHROPIC_MODEL=… node examples/anthropic-tool-search.mjs   (needs @anthropic-ai/sdk)
import { anthropicToolSearch } from "toolgraph/anthropic";
import { openExampleToolgraph, PARAMETERS, printPicked, TOOLS } from "./catalog.mjs";

const tg = await openExampleToolgraph();
try {
  // Your tool definitions; a name's first "__" stands for the toolgraph id's dot (git__commit ↔ git.commit).
  const tools = TOOLS.map((t) => ({ name: t.id.replace(".", "__"), description: t.description, input_schema: PARAMETERS }));
  const search = anthropicToolSearch(tg, { tools, k: 3 });
  const messages = [{ role: "user", content: "Open a pull request for my fix" }];

  if (process.env.ANTHROPIC_API_KEY) {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const client = new Anthropic();
    const model = process.env.ANTHROPIC_MODEL ?? "claude-sonnet-4-6";
    for (let turn = 0; turn < 4; turn++) {
      const m = await client.messages.create({ model, max_tokens: 1024, messages, tools: search.tools });
      messages.push({ role: "assistant", content: m.content });
      const results = await search.answer(m.content);
      if (results.length === 0) {
        console.log(JSON.stringify(m.content, null, 2));
        break;
      }
      messages.push({ role: "user", content: results });
    }
  } else {
    // What the model sends when it wants tools: a tool_use of the search tool.
    const content = [{ type: "tool_use", id: "toolu_example", name: "tool_search", input: { query: "open a pull request" } }];
    const results = await search.answer(content);
    console.log("tool_result sent back:", JSON.stringify(results, null, 2));
  }
  console.log("why these tools:");
  printPicked(search.selections[0]);
} finally {
  await tg.close();
}
