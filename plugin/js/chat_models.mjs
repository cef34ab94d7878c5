// The LangChain.js chat models tooltape streams, by dialect: one copy for merge.mjs (the
// second reference) and subjects.mjs (the langchain-js matrix subject).
// `baseURL` is the provider's base URL as its SDK takes it (OpenAI's ends in /v1).

// A streamed turn with no retry the plan did not ask for: what every model here shares.
async function streamed(module, className, options) {
  const ChatModel = (await import(module))[className];
  return new ChatModel({ streaming: true, maxRetries: 0, ...options });
}

export const CHAT_MODELS = {
  openai_chat: (baseURL) =>
    streamed("@langchain/openai", "ChatOpenAI", {
      model: "gpt-4o",
      apiKey: "sk-tooltape",
      configuration: { baseURL },
    }),
  anthropic_messages: (baseURL) =>
    streamed("@langchain/anthropic", "ChatAnthropic", {
      model: "claude-sonnet-4-5",
      apiKey: "sk-ant-tooltape",
      maxTokens: 1024,
      anthropicApiUrl: baseURL,
    }),
};
