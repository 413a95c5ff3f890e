"""Return to player: exact analysis, basic strategy, simulator, par sheets.

Owns: ``cabinet.strategy`` — the dealer model (``dealer``), the exact
combinatorial analysis (``analysis``: its per-up-card solver ``td_engine``, its
results ``analysis_results``), its composition-dependent twin (``cd``), the shoe
both see from one up card (``upcard``), the total-dependent basic strategy and
the autoplayer lookup (``strategy``), the common printed chart as a
``Strategy`` (``common``), the strategy chart image (``chart``),
the multiprocessing simulator (``simulate``), the par sheet writer
(``parsheet``) and the CLI entry points (``cli``). Built on ``cabinet.game``
only; never imports ``drivers`` or ``ui``. Heavy modules (pygame, tqdm,
multiprocessing) are imported by the modules that need them, not here.
"""

from .analysis import ActionEVs, Analysis, UpCardResult, analyse, deal_ev
from .cd import CDAnalysis, analyse_cd
from .dealer import OUTCOMES, DealerModel, dealer_table, shoe_counts
from .strategy import Strategy

__all__ = [
    "ActionEVs",
    "Analysis",
    "CDAnalysis",
    "DealerModel",
    "OUTCOMES",
    "Strategy",
    "UpCardResult",
    "analyse",
    "analyse_cd",
    "deal_ev",
    "dealer_table",
    "shoe_counts",
]
