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
