// toolgraph/openai: a client-executed tool_search in the Responses API, answered by toolgraph.
//   node examples/openai-tool-search.mjs                  (offline: a scripted tool_search_call)
//   OPENAI_API_KEY=… OPENAI_MODEL=… node examples/openai-tool-search.mjs   (needs openai)
import { openaiToolSearch } from "toolgraph/openai";
import { openExampleToolgraph, PARAMETERS, printPicked, TOOLS } from "./catalog.mjs";

const tg = await openExampleToolgraph();
try {
  // Functions named by toolgraph id: each server becomes a namespace (git: commit, push; github: …).
  const search = openaiToolSearch(tg, { functions: TOOLS.map((t) => ({ name: t.id, description: t.description, parameters: PARAMETERS })), k: 3 });

  if (process.env.OPENAI_API_KEY) {
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI();
    const model = process.env.OPENAI_MODEL ?? "gpt-5.4";
    let r = await client.responses.create({ model, input: "Open a pull request for my fix", tools: search.tools });
    for (let turn = 0; turn < 4; turn++) {
      const loaded = await search.answer(r.output);
      if (loaded.length === 0) break;
      r = await client.responses.create({ model, previous_response_id: r.id, input: loaded, tools: search.tools });
    }
    for (const item of r.output) if (item.type === "function_call") console.log(`model calls ${search.toolIdOf(item)} with ${item.arguments}`);
  } else {
    // What the model sends when it wants tools: a tool_search_call executed by the client.
    const output = [{ type: "tool_search_call", id: "tsc_example", call_id: "call_example", execution: "client", status: "completed", arguments: { query: "open a pull request" } }];
    console.log("tool_search_output sent back:", JSON.stringify(await search.answer(output), null, 2));
  }
  console.log("why these tools:");
  printPicked(search.selections[0]);
} finally {
  await tg.close();
}
