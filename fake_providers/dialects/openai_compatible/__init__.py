"""OpenAI-compatible servers: profiles of ``openai_chat`` (vLLM, Groq, Azure ...)."""
