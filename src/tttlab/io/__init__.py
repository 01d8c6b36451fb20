"""Reading and writing agent files (no pickle), resolving AGENT arguments, and agents from
anyone's code (:mod:`tttlab.io.adapters`: the conventions)."""

from tttlab.io.adapters import CONVENTIONS, UserAgent, user_agent
from tttlab.io.agentfile import (
    AgentFileError,
    FileAgent,
    check_board,
    load_agent_file,
    save_agent,
)
from tttlab.io.resolve import file_agent, is_builtin, resolve_agent
from tttlab.io.userspec import is_user_spec

__all__ = [
    "CONVENTIONS",
    "AgentFileError",
    "FileAgent",
    "UserAgent",
    "check_board",
    "file_agent",
    "is_builtin",
    "is_user_spec",
    "load_agent_file",
    "resolve_agent",
    "save_agent",
    "user_agent",
]
