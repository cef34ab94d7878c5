// LangChain.js as a second reference: stream each job from a server, merge, print the calls.
//
// Usage: node merge.mjs < jobs.json
// jobs.json is a list of {"key", "dialect", "url", "tools": [names]}: `url` is the base URL of
// a server that streams that job's wire (tooltape's plugin/_js_reference.py serves them).
// Prints one JSON line per job: {"key", "calls": [{name, args, id}] | null, "error": str | null}.
// A call is what LangChain.js makes of one merged tool-call chunk: its parsed tool call, or the
// raw chunk (args left a string) when it is invalid, in the merged chunks' order, the shape
// tooltape's Python differential uses for langchain-core.
import { AIMessageChunk } from "@langchain/core/messages";

import { CHAT_MODELS } from "./chat_models.mjs";

const ADAPTERS = {
  openai_chat: (url) => CHAT_MODELS.openai_chat(`${url}/v1`),
  anthropic_messages: (url) => CHAT_MODELS.anthropic_messages(url),
};

function toolSpec(name) {
  return {
    type: "function",
    function: { name, description: name, parameters: { type: "object", properties: {} } },
  };
}

function calls(merged) {
  return (merged?.tool_call_chunks ?? []).map((chunk) => {
    const made = new AIMessageChunk({ content: "", tool_call_chunks: [chunk] }).tool_calls;
    if (made.length > 0) {
      return { name: made[0].name, args: made[0].args, id: made[0].id ?? null };
    }
    return { name: chunk.name ?? null, args: chunk.args ?? null, id: chunk.id ?? null };
  });
}

async function run(job) {
  const model = await ADAPTERS[job.dialect](job.url);
  const bound = job.tools.length > 0 ? model.bindTools(job.tools.map(toolSpec)) : model;
  let merged;
  try {
    for await (const chunk of await bound.stream("What is the weather?")) {
      merged = merged === undefined ? chunk : merged.concat(chunk);
    }
  } catch (error) {
    const message = String(error?.message ?? error).split(/\s+/).join(" ").slice(0, 160);
    const kind = error?.constructor?.name ?? "Error";
    return { key: job.key, calls: merged === undefined ? null : calls(merged), error: `${kind}: ${message}` };
  }
  return { key: job.key, calls: calls(merged), error: null };
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const jobs = JSON.parse(Buffer.concat(chunks).toString("utf8"));
for (const job of jobs) {
  if (!(job.dialect in ADAPTERS)) {
    console.log(JSON.stringify({ key: job.key, calls: null, error: `no adapter for ${job.dialect}` }));
    continue;
  }
  console.log(JSON.stringify(await run(job)));
}
