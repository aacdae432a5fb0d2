"""A plug-in module as a third-party package ships it: importing it registers its model kind (the
toy kind of ``tests/models/test_toy_kind.py``). A package declares it under the entry-point group
``bdpsim.plugins``; ``tests/models/test_toy_kind.py`` stands in such a declaration."""

from bdpsim.models import register_model_kind

from ..models.test_toy_kind import CopiesKind

KIND = register_model_kind(CopiesKind())
