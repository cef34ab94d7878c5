// Stream one turn with tools from an OpenAI-compatible server and print the merged tool calls.
//
// Usage: node stream_tools.mjs <base-url> <tool-name>...
// Prints one JSON line: {"tool_calls": [{name, args, id}], "invalid_tool_calls": [...], "chunks": N}.
// tests/test_cross_language.py runs it against `tooltape serve`.
import { ChatOpenAI } from "@langchain/openai";

const [baseURL, ...toolNames] = process.argv.slice(2);
const model = new ChatOpenAI({
  model: "gpt-4o",
  apiKey: "sk-tooltape",
  streaming: true,
  maxRetries: 0,
  configuration: { baseURL },
});
const tools = toolNames.map((name) => ({
  type: "function",
  function: { name, description: name, parameters: { type: "object", properties: {} } },
}));

let merged;
let chunks = 0;
for await (const chunk of await model.bindTools(tools).stream("What is the weather in Paris?")) {
  merged = merged === undefined ? chunk : merged.concat(chunk);
  chunks += 1;
}
const pick = (call) => ({ name: call.name, args: call.args, id: call.id ?? null });
console.log(
  JSON.stringify({
    tool_calls: (merged?.tool_calls ?? []).map(pick),
    invalid_tool_calls: (merged?.invalid_tool_calls ?? []).map(pick),
    chunks,
  }),
);
