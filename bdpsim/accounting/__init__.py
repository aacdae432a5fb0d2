"""The privacy accountant of many releases on the same correlated records (:func:`account`)."""

from .accountant import Account, account
from .releases import HistogramRelease, Release
from .releases import LocalRelease as LocalRelease  # documented in bdpsim.mechanisms.local
from .values import Value

__all__ = ["Account", "HistogramRelease", "Release", "Value", "account"]
