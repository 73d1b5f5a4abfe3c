"""The embedded model server: llama-cpp-python's OpenAI-compatible server with the tool-calling
chat handler of `llama_tools` registered, so `--chat_format ops-chatml-tools` selects it.

    python -m ops_eval.models.llama_server --model FILE.gguf --chat_format ops-chatml-tools ...

Every other option is llama-cpp-python's own (`python -m llama_cpp.server --help`).
"""

from __future__ import annotations


def main() -> None:
    from llama_cpp.llama_chat_format import LlamaChatCompletionHandlerRegistry
    from llama_cpp.server.__main__ import main as serve

    from .embedded import CHAT_FORMAT
    from .llama_tools import handler

    LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        CHAT_FORMAT, handler, overwrite=True
    )
    serve()


if __name__ == "__main__":
    main()
