"""AWS Bedrock (``bedrock_converse``, ``bedrock_invoke``): streams, parse, rules."""

from tooltape.fake_providers.dialects.bedrock._converse import BedrockConverseDialect
from tooltape.fake_providers.dialects.bedrock._invoke import BedrockInvokeDialect

__all__ = ["BedrockConverseDialect", "BedrockInvokeDialect"]
