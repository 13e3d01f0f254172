"""A referee for bot competitions: untrusted bots as isolated processes over stdin/stdout."""

#: The package's version, read by pyproject.toml (``[tool.setuptools.dynamic]``): a
#: literal, since every command records it and importlib.metadata takes ~0.05 s to load.
__version__ = "0.1.0"
