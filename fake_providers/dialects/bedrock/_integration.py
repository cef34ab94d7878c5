"""AWS Bedrock in the outside world: the runtime endpoint, boto3, langchain-aws, AnthropicBedrock.

boto3 speaks botocore over urllib3, which no transport patch reaches: the
fixtures serve Bedrock on a 127.0.0.1 server and send botocore there
(:mod:`tooltape.fake_providers.botocore_patch`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._litellm import litellm_accumulator
from tooltape.fake_providers.dialects.anthropic._integration import anthropic_body, message_stream
from tooltape.fake_providers.integration import Accumulator, Integration, ToolSpec

__all__ = ["BedrockConverseIntegration", "BedrockInvokeIntegration"]

_REGION = "us-east-1"
_KEY_ID, _SECRET = "AKIATOOLTAPETEST", "tooltape-test-secret"


def _credentials(
    region: str = "region_name",
    key_id: str = "aws_access_key_id",
    secret: str = "aws_secret_access_key",
) -> dict[str, Any]:
    """The test credentials, under the names a client takes them by (boto3's by default)."""
    return {region: _REGION, key_id: _KEY_ID, secret: _SECRET}


def _anthropic_bedrock(base_url: str, http_client: Any = None, **kwargs: Any) -> Any:
    import anthropic

    kwargs.setdefault("max_retries", 0)
    credentials = _credentials("aws_region", "aws_access_key", "aws_secret_key")
    return anthropic.AnthropicBedrock(
        base_url=base_url, http_client=http_client, **credentials, **kwargs
    )


class _BedrockIntegration(Integration):
    base_url = f"https://bedrock-runtime.{_REGION}.amazonaws.com"
    model = "anthropic.claude-sonnet-4-5-v1"
    sdk = "boto3"
    sdk_stack = "botocore"
    chat_model_module = "langchain_aws"

    def sdk_client(self, base_url: str, **kwargs: Any) -> Any:
        """``boto3.client("bedrock-runtime", endpoint_url=base_url)``, test credentials, one try."""
        import boto3  # type: ignore[import-untyped]
        from botocore.config import Config  # type: ignore[import-untyped]

        options = {**_credentials(), "config": Config(retries={"total_max_attempts": 1})}
        return boto3.client("bedrock-runtime", endpoint_url=base_url, **{**options, **kwargs})


class BedrockConverseIntegration(_BedrockIntegration):
    """ConverseStream: boto3's ``converse_stream`` and ``ChatBedrockConverse``."""

    chat_model_class = "ChatBedrockConverse"
    chat_model_options = _credentials()

    accumulators = (
        litellm_accumulator(
            "bedrock",
            "converse/anthropic.claude-sonnet-4-5-v1",
            base_url_arg="aws_bedrock_runtime_endpoint",
            extra=_credentials(region="aws_region_name"),
        ),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What boto3's ``converse_stream`` sends (the model is in the path)."""
        body: dict[str, Any] = {"messages": [{"role": "user", "content": [{"text": prompt}]}]}
        if tools:
            specs = [{"toolSpec": {"name": n, "inputSchema": {"json": s}}} for n, s in tools]
            body["toolConfig"] = {"tools": specs}
        return body


class BedrockInvokeIntegration(_BedrockIntegration):
    """InvokeModelWithResponseStream: boto3, ``ChatBedrock`` and anthropic's AnthropicBedrock."""

    chat_model_class = "ChatBedrock"
    chat_model_url = "endpoint_url"
    chat_model_options = _credentials() | {"streaming": True, "model_kwargs": {"max_tokens": 256}}

    accumulators = (
        Accumulator(
            "anthropic.MessageStream (Bedrock)",
            "anthropic-sdk",
            ("anthropic", "botocore"),
            _anthropic_bedrock,
            message_stream,
            "anthropic: AnthropicBedrock messages.stream(...).get_final_message()",
        ),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What ``invoke_model_with_response_stream`` carries for a Claude model."""
        body = anthropic_body(self.model, prompt, tools)
        del body["model"]
        return {"anthropic_version": "bedrock-2023-05-31", **body}
