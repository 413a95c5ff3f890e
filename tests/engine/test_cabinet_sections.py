"""``Cabinet`` is split into one module per concern (mixins over
``CabinetBase``); every method a section calls in another is really defined."""

from __future__ import annotations

import inspect

from cabinet.core.base import CabinetBase
from cabinet.core.machine import Cabinet


def test_every_cross_section_method_of_the_base_is_defined_by_a_section_or_cabinet():
    """No ``CabinetBase`` placeholder (``raise NotImplementedError``) is
    what ``Cabinet`` runs: each is overridden by a mixin or by ``Cabinet`` itself."""
    stubs = [
        name
        for name, v in vars(CabinetBase).items()
        if callable(getattr(v, "fget", v)) and "NotImplementedError" in inspect.getsource(getattr(v, "fget", v))
    ]
    assert len(stubs) >= 20
    for name in stubs:
        owner = next(k for k in Cabinet.__mro__ if name in vars(k))
        assert owner is not CabinetBase, name
