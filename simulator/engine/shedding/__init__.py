"""Load shedding for the local CEP engine under overload (pSPICE: Partial Match Shedding for
Complex Event Processing, §III).

Modules follow the paper: :mod:`.markov` (completion probability, §III-C1), :mod:`.reward`
(remaining processing time, §III-C2), :mod:`.utility` (utility table, §III-B/C3),
:mod:`.pspice_model` (model builder and observed transitions), :mod:`.node_queue` (a node's
FIFO queue and server in front of its engines, §III-A, driving the detector and the
shedders per item), :mod:`.detector` (overload detector, §III-E), :mod:`.shedders` (pSPICE
and the baselines, §III-F) and :mod:`.quality` (quality of results against an unshedded
run).
"""

DEFAULT_COST_PER_UNIT = 1.0
"""Time units one work unit takes at capacity 1 unless told: the node queue's service time is
``work units × cost per unit / capacity`` (:mod:`.node_queue`). Here, not in
:mod:`.node_queue`, so that the engine's door (:mod:`inev.simulator.engine.api`) and the
simulator's capacity options name it without loading the shedders."""
