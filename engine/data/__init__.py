"""Loading and validating inputs; sample-data generators; :class:`InputError`."""

from engine.data.errors import InputError

__all__ = ["InputError"]
