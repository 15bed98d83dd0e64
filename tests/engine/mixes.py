"""Every mix of a game's options, for the tests that play them all."""

from __future__ import annotations

from itertools import product

from engine.core import GameSpec, OptionValue


def option_mixes(spec: GameSpec) -> list[dict[str, OptionValue]]:
    """Every distinct mix of the game's options the lobby can give (an option whose need is
    unmet stays at its default), the defaults first."""
    default = spec.resolve_options()
    mixes = [default]
    for values in product(*(o.choices for o in spec.options)):
        chosen = {o.name: v for o, v in zip(spec.options, values, strict=True)}
        spec.settle(chosen)
        mix = spec.resolve_options(chosen)
        if mix not in mixes:
            mixes.append(mix)
    return mixes
