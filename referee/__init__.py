"""A referee for bot competitions: untrusted bots as isolated processes over stdin/stdout."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("referee")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"
