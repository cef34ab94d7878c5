// The LangChain.js chat models tooltape streams, by dialect: one copy for merge.mjs (the
// second reference) and subjects.mjs (the langchain-js matrix subject).
// `baseURL` is the provider's base URL as its SDK takes it (OpenAI's ends in /v1).

// What every model here shares: a streamed turn, and no retry the plan did not ask for.
const STREAMED = { streaming: true, maxRetries: 0 };

export const CHAT_MODELS = {
  openai_chat: async (baseURL) => {
    const { ChatOpenAI } = await import("@langchain/openai");
    return new ChatOpenAI({
      model: "gpt-4o",
      apiKey: "sk-tooltape",
      ...STREAMED,
      configuration: { baseURL },
    });
  },
  anthropic_messages: async (baseURL) => {
    const { ChatAnthropic } = await import("@langchain/anthropic");
    return new ChatAnthropic({
      model: "claude-sonnet-4-5",
      apiKey: "sk-ant-tooltape",
      ...STREAMED,
      maxTokens: 1024,
      anthropicApiUrl: baseURL,
    });
  },
};
