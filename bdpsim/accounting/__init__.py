"""The privacy accountant of many releases on the same correlated records (:func:`account`)."""

from .accountant import Account, account
from .releases import HistogramRelease, LocalRelease, Release
from .values import Value

__all__ = ["Account", "HistogramRelease", "LocalRelease", "Release", "Value", "account"]
