// LangChain.js and the Vercel AI SDK as `tooltape matrix` subjects: stream each job, print its calls.
//
// Usage: node subjects.mjs < jobs.json
// jobs.json is {"subject", "timeout_ms", "jobs": [{"key", "dialect", "url", "tools"}]}: `url` is
// the provider's base URL on a 127.0.0.1 server that streams that job's wire (the real base
// URL's path under /job/N/, see plugin/_engine/js_subjects.py), `tools` OpenAI-style definitions.
// Prints {"start": key} when a job starts, then one answer line per job:
// {"key", "valid": [{name, args, id}], "invalid": [...], "text": string | null,
//  "parts": ["text" | "call", ...] | null, "error": {"type", "message"} | null, "hangs": bool,
//  "ms": number}. Valid calls have an object `args`; invalid ones keep the raw text. `text` is the
// turn's visible text (reasoning left out), `parts` the order of text and calls, runs collapsed
// (null where the result keeps no order).

// Kinds in order, runs collapsed: ["text", "text", "call"] -> ["text", "call"].
const runs = (kinds) => kinds.filter((kind, at) => kind !== kinds[at - 1]);

// A LangChain.js message's text, and the order of its blocks where calls are blocks among them.
function messageText(content) {
  if (typeof content === "string") return { text: content, parts: null };
  const texts = [];
  const kinds = [];
  for (const block of Array.isArray(content) ? content : []) {
    if (typeof block === "string" || block?.type === "text") {
      const text = typeof block === "string" ? block : (block.text ?? "");
      if (text) {
        texts.push(text);
        kinds.push("text");
      }
    } else if (["tool_use", "tool_call", "function_call", "input_json_delta"].includes(block?.type)) {
      if (block.type !== "input_json_delta" || kinds.at(-1) !== "call") kinds.push("call");
    }
  }
  return { text: texts.join(""), parts: kinds.includes("call") ? runs(kinds) : null };
}

import { CHAT_MODELS } from "./chat_models.mjs";

const VERCEL_OPENAI = async (url) => {
  const { createOpenAI } = await import("@ai-sdk/openai");
  return createOpenAI({ baseURL: url, apiKey: "sk-tooltape" }).chat("gpt-4o");
};

const VERCEL_ANTHROPIC = async (url) => {
  const { createAnthropic } = await import("@ai-sdk/anthropic");
  return createAnthropic({ baseURL: `${url}/v1`, apiKey: "sk-ant-tooltape" })("claude-sonnet-4-5");
};

const PROMPT = "What is the weather in Paris?";

// LangChain.js: .stream() merged with concat, as an application's `full = full.concat(chunk)`.
async function langchainJs(job, signal) {
  const factory = CHAT_MODELS[job.dialect];
  const model = await factory(job.url);
  const bound = model.bindTools(job.tools);
  let merged;
  for await (const chunk of await bound.stream(PROMPT, { signal })) {
    merged = merged === undefined ? chunk : merged.concat(chunk);
  }
  const pick = (call) => ({ name: call.name ?? null, args: call.args ?? null, id: call.id ?? null });
  // collapseToolCallChunks names a nameless fragment "" (`chunks[0]?.name ?? ""`); langchain-core
  // keeps what the chunk had (None, or ""). Say null unless a chunk of that id streamed "".
  const streamedEmpty = (id) =>
    (merged?.tool_call_chunks ?? []).some((c) => (c.id || null) === (id || null) && c.name === "");
  const unnamed = (call) => ({ ...pick(call), name: call.name || (streamedEmpty(call.id) ? "" : null) });
  return {
    valid: (merged?.tool_calls ?? []).map(pick),
    invalid: (merged?.invalid_tool_calls ?? []).map(unnamed),
    ...messageText(merged?.content ?? ""),
  };
}

// The Vercel AI SDK: streamText with tools declared without `execute`, read back as toolCalls.
async function vercelAi(job, signal) {
  const { streamText, tool, jsonSchema } = await import("ai");
  const factory = { openai_chat: VERCEL_OPENAI, anthropic_messages: VERCEL_ANTHROPIC }[job.dialect];
  const model = await factory(job.url);
  const tools = Object.fromEntries(
    job.tools.map((spec) => [
      spec.function.name,
      tool({ description: spec.function.description, inputSchema: jsonSchema(spec.function.parameters) }),
    ]),
  );
  const result = streamText({ model, tools, prompt: PROMPT, maxRetries: 0, abortSignal: signal });
  let failure;
  const streamed = new Map(); // tool-input id -> the argument text as streamed (toolCalls parse it)
  const kinds = [];
  const started = new Set();
  for await (const part of result.fullStream) {
    if (part.type === "error" && failure === undefined) failure = part.error;
    if (part.type === "tool-input-delta") streamed.set(part.id, (streamed.get(part.id) ?? "") + part.delta);
    if (part.type === "text-delta" && part.text) kinds.push("text");
    // A call's place is where its input starts; `tool-call` (the finished call) may come later.
    if (part.type === "tool-input-start") started.add(part.id);
    if (part.type === "tool-input-start" || (part.type === "tool-call" && !started.has(part.toolCallId))) {
      kinds.push("call");
    }
  }
  if (failure !== undefined) throw failure;
  const valid = [];
  const invalid = [];
  for (const call of await result.toolCalls) {
    const input = call.input;
    const object = input !== null && typeof input === "object" && !Array.isArray(input);
    if (call.invalid || !object) {
      const raw = streamed.get(call.toolCallId) ?? (typeof input === "string" ? input : JSON.stringify(input ?? null));
      invalid.push({ name: call.toolName ?? null, args: raw, id: call.toolCallId ?? null });
    } else {
      valid.push({ name: call.toolName, args: input, id: call.toolCallId ?? null });
    }
  }
  return { valid, invalid, text: await result.text, parts: runs(kinds) };
}

const SUBJECTS = { "langchain-js": langchainJs, "vercel-ai": vercelAi };

class CellHangs extends Error {}

function described(error) {
  const type = error?.name && error.name !== "Error" ? error.name : (error?.constructor?.name ?? "Error");
  const message = String(error?.message ?? error).split(/\s+/).join(" ").slice(0, 300);
  return { type, message };
}

async function run(subject, job, timeoutMs) {
  const started = performance.now();
  const abort = new AbortController();
  let timer;
  const limit = new Promise((_, reject) => {
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        reject(new CellHangs(`no result within ${timeoutMs / 1000} s`));
        abort.abort();
      }, timeoutMs);
    }
  });
  const answer = { key: job.key, valid: null, invalid: null, error: null, hangs: false };
  try {
    Object.assign(answer, await Promise.race([subject(job, abort.signal), limit]));
  } catch (error) {
    answer.hangs = error instanceof CellHangs;
    answer.error = described(error);
  } finally {
    clearTimeout(timer);
  }
  answer.ms = performance.now() - started;
  return answer;
}

const input = [];
for await (const chunk of process.stdin) input.push(chunk);
const { subject: name, timeout_ms: timeoutMs, jobs } = JSON.parse(Buffer.concat(input).toString("utf8"));
const subject = SUBJECTS[name];
if (subject === undefined) {
  console.error(`subjects.mjs: no subject ${name}; known: ${Object.keys(SUBJECTS).join(", ")}`);
  process.exit(2);
}
for (const job of jobs) {
  console.log(JSON.stringify({ start: job.key }));
  console.log(JSON.stringify(await run(subject, job, timeoutMs)));
}
