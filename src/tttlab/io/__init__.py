"""Reading and writing agent files (no pickle), and resolving AGENT arguments (a user's
code among them, loaded unboxed by :mod:`tttlab.unboxed`)."""

from tttlab.io.agentfile import (
    AgentFileError,
    FileAgent,
    check_board,
    load_agent_file,
    save_agent,
)
from tttlab.io.resolve import file_agent, is_builtin, resolve_agent

__all__ = [
    "AgentFileError",
    "FileAgent",
    "check_board",
    "file_agent",
    "is_builtin",
    "load_agent_file",
    "resolve_agent",
    "save_agent",
]
