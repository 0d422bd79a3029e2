"""OpenCEP's test suite written in inev's query language, for ``benchmarks/opencep_suite.py``:
one :class:`Translation` per OpenCEP expected output (:data:`TRANSLATIONS`), the outputs we
cannot write and why (:data:`UNTRANSLATED`), the malformed conditions inev must refuse
(:data:`REFUSALS`), and the event files' columns in both systems' names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

STOCK_COLUMNS = ("ticker", "date", "open", "peak", "low", "close", "volume")


SENSOR_COLUMNS = {
    "PressTemp": ("pressure", "temperature"),
    "Accelerometer": ("accx", "accy", "accz"),
    "Magnetometer": ("magx", "magy", "magz"),
}


OPENCEP_STOCK = ("Stock Ticker", "Date", "Opening Price", "Peak Price", "Lowest Price",
                 "Close Price", "Volume")  # fmt: skip


OPENCEP_SENSOR = {
    "PressTemp": ("Pressure", "Temperature"),
    "Accelerometer": ("AccX", "AccY", "AccZ"),
    "Magnetometer": ("MagX", "MagY", "MagZ"),
}


@dataclass(frozen=True)
class Translation:
    """One OpenCEP expected output in inev's terms: a workload per OpenCEP pattern
    (``(pattern, where, window)``; OpenCEP may give each pattern its own window, inev a
    workload one), selection options, and a note on what the translation chose."""

    queries: tuple[tuple[str, str | None, float], ...]
    strategy: str = "any"
    consume: tuple[str, ...] = ()
    freeze: tuple[str, ...] = ()
    note: str = ""
    design: str = ""
    """A difference by design: why inev's reading differs from OpenCEP's (a difference is
    then named with this reason, never counted as OpenCEP's error)."""


def _t(pattern: str, where: str | None, window: float, **options: Any) -> Translation:
    return Translation(((pattern, where, window),), **options)


ABC = "SEQ(AAPL a, AMZN b, AVID c)"


SENSORS = "a.magx > b.accx AND a.magy < b.accy AND a.amplitude == b.amplitude"


SENSOR_SEQ = "SEQ(Magnetometer a, Accelerometer b)"


TRANSLATIONS: dict[str, Translation] = {
    "duplicateEventTypeMatches.txt": _t("SEQ(AMZN a, AMZN b, AMZN c)", None, 10),
    "KleeneClosureSeqMatches.txt": _t("SEQ(AMZN a, KL(GOOG b), AAPL c)", None, 5),
    "KleeneClosureAndMatches.txt": _t("AND(AMZN a, KL(GOOG b), AAPL c)", None, 5),
    "MinMax_0_Matches.txt": _t("KL(GOOG a){1,2}", "a.open > 0", 5),
    "MinMax_1_Matches.txt": _t("KL(GOOG a)", "a.open > 0", 5),
    "MinMax_2_Matches.txt": _t("KL(GOOG a){4,5}", "a.open > 0", 5),
    "KC_AND_Matches.txt": _t(
        "KL(AND(GOOG a, GOOG b, GOOG c)){1,3}", "a.peak < b.peak AND b.peak < c.peak", 3
    ),
    # OpenCEP's index and offset conditions read the iterations' events flattened in
    # pattern order ([a, b, a, b, ...]): index 0 vs 2 is the a of iterations 1 and 2, an
    # offset of 2 pairs each leaf with itself in the next iteration (and fails on one
    # iteration: the offset must be smaller than the list), an offset of -1 each event
    # with the one before it (b with a, c with b, and the next a with c)
    "KC_AND_IndexCondition_01_Matches.txt": _t(
        "KL(AND(GOOG a, GOOG b)){1,3}", "a.peak < b.peak AND a[1].peak < a[2].peak", 3
    ),
    "KC_AND_IndexCondition_02_Matches.txt": _t(
        "KL(AND(GOOG a, GOOG b)){2,3}",
        "a.peak < b.peak AND a.peak < NEXT(a).peak AND b.peak < NEXT(b).peak",
        3,
    ),
    "KC_AND_NegOffSet_01_Matches.txt": _t(
        "KL(AND(GOOG a, GOOG b, GOOG c)){1,3}",
        "a.peak < b.peak AND b.peak < c.peak AND b.peak < 1 + a.peak AND c.peak < 1 + b.peak"
        " AND NEXT(a).peak < 1 + c.peak",
        3,
    ),
    "KC_AllValues_01_Matches.txt": _t("KL(GOOG a)", "a.open > 0 AND a.peak > 530.5", 5),
    "KC_Specific_Value_Matches.txt": _t("KL(GOOG a)", "a.open > 0 AND a[3].peak > 530.5", 5),
    "KC_Mixed_Matches.txt": _t(
        "KL(GOOG a)", "a.open > 0 AND a.peak > 530.5 AND NEXT(a).open + 0.5 < a.open", 5
    ),
    "simpleNotMatches.txt": _t(
        "SEQ(AAPL a, NOT(AMZN b), GOOG c)", "a.open > b.open AND b.open < c.open", 5
    ),
    "MultipleNotMiddleMatches.txt": _t(
        "SEQ(AAPL a, NOT(LI d), AMZN b, NOT(FB e), GOOG c)",
        "a.open > b.open AND b.open < c.open AND e.open > a.open AND d.open < c.open",
        4,
    ),
    "OneNotBeginMatches.txt": _t(
        "SEQ(NOT(TYP1 x), AAPL a, AMZN b, GOOG c)", "a.open > b.open AND b.open < c.open", 5
    ),
    "MultipleNotBeginMatches.txt": _t(
        "SEQ(NOT(TYP1 x), NOT(TYP2 y), NOT(TYP3 z), AAPL a, AMZN b, GOOG c)",
        "a.open > b.open AND b.open < c.open",
        5,
    ),
    "OneNotEndMatches.txt": _t(
        "SEQ(AAPL a, AMZN b, GOOG c, NOT(TYP1 x))", "a.open > b.open AND b.open < c.open", 5
    ),
    "MultipleNotEndMatches.txt": _t(
        "SEQ(AAPL a, AMZN b, GOOG c, NOT(TYP1 x), NOT(TYP2 y), NOT(TYP3 z))",
        "a.open > b.open AND b.open < c.open",
        5,
    ),
    "MultipleNotBeginAndEndMatches.txt": _t(
        "SEQ(NOT(TYP1 x), NOT(TYP4 t), AAPL a, AMZN b, GOOG c, NOT(TYP2 y), NOT(TYP3 z))",
        "x.open > b.open AND y.open < c.open AND t.open > a.open",
        5,
    ),
    "NotEverywhereMatches.txt": _t(
        "SEQ(NOT(AAPL a), AMAZON b, NOT(GOOG c), FB d, NOT(TYP1 x))",
        "a.open > b.open AND b.open < c.open",
        5,
    ),
    "NotEverywhere2Matches.txt": _t(
        "SEQ(NOT(TYP1 x), NOT(TYP4 t), AAPL a, NOT(TYP5 m), NOT(TYP6 f), AMZN b, GOOG c,"
        " NOT(TYP2 y), NOT(TYP3 z))",
        "x.open > b.open AND y.open < c.open AND t.open > a.open",
        5,
    ),
    "singleType2PolicyMatches.txt": _t(ABC, "a.open > c.open", 5, consume=("b",)),
    "contiguousPolicySingleListMatches.txt": _t(ABC, "a.open > c.open", 5, strategy="contiguous"),
    # contiguous=[["a", "b"], ["b", "c"]]: a next to b and b next to c
    "contiguousPolicyMultipleListsMatches.txt": _t(
        ABC,
        "a.open > c.open",
        5,
        strategy="contiguous",
        note="OpenCEP adds the a-b condition for both lists (its loop indexes the pattern by "
        "the list position), so b-c contiguity is never checked",
    ),
    "freezePolicyMatches.txt": _t(ABC, "a.open > c.open", 5, freeze=("a",)),
    "freezePolicy2Matches.txt": _t(ABC, "a.open > c.open", 5, freeze=("b",)),
    "FirstMultiPatternMatches.txt": Translation(
        (
            ("AAPL a", "a.peak > 135", 5),
            ("SEQ(AAPL a, NOT(AMZN b), GOOG c)", "a.open > b.open AND b.open < c.open", 5),
        )
    ),
    "RootAndInnerMatches.txt": Translation(
        (
            ("AAPL a", "a.peak >= 135", 5),
            ("SEQ(AAPL a, AMZN b, GOOG c)", "a.peak >= 135 AND b.peak < c.peak", 3),
        )
    ),
    "onePatternIncludesOtherMatches.txt": Translation(
        (
            ("SEQ(GOOG a, GOOG b, AAPL c)", "a.peak < b.peak AND b.peak > c.peak", 3),
            ("SEQ(GOOG a, GOOG b)", "a.peak < b.peak", 3),
        )
    ),
    "threeSharingSubtreesMatches.txt": Translation(
        (
            (
                "SEQ(AAPL a, AMZN b, GOOG c, NOT(TYP1 x), NOT(TYP2 y), NOT(TYP3 z))",
                "a.open > b.open AND b.open < c.open",
                5,
            ),
            ("SEQ(AAPL a, AMZN b, TYP1 x)", "a.open > b.open", 5),
            ("SEQ(AAPL a, AMZN b)", "a.open > b.open", 5),
        )
    ),
    "MultipleNotBeginningShareMatches.txt": Translation(
        (
            (
                "SEQ(NOT(TYP1 x), NOT(TYP2 y), NOT(TYP3 z), AAPL a, AMZN b, GOOG c)",
                "a.open > b.open AND b.open < c.open",
                5,
            ),
            ("SEQ(NOT(TYP1 x), NOT(TYP2 y), AAPL a, AMZN b)", "a.open > b.open", 5),
            ("SEQ(AAPL a, AMZN b, GOOG c)", "a.open > b.open AND c.open > b.open", 5),
        )
    ),
    "multipleParentsForInternalNodeMatches.txt": Translation(
        (
            ("SEQ(AAPL a, AMZN b, GOOG c)", "a.open > b.open AND c.peak > 500", 5),
            ("SEQ(AAPL a, AMZN b, GOOG c)", "a.open > b.open AND c.peak > 530", 3),
            ("SEQ(AAPL a, AMZN b, FB e)", "a.open > b.open AND e.peak > 520", 5),
            ("SEQ(AAPL a, AMZN b, LI c)", "a.open > b.open AND c.peak > 100", 2),
        )
    ),
    "NegationInNestedShortMatches.txt": _t(
        "SEQ(AAPL a, AMZN b, AND(NOT(FB c), GOOG d))",
        None,
        1,
        design="OpenCEP checks a negation nested in an AND against that AND's events only (no "
        "FB within the window of the GOOG, before or after the AMZN); inev bounds it by the "
        "pattern's order (after the AMZN, which the AND follows) and the match's window",
    ),
    "parallel_GroupByKey_1_Matches.txt": _t("SEQ(AAPL a, AMZN b)", "a.open == b.open", 5),
    "parallel_2_Matches.txt": _t("SEQ(AAPL a, AMZN b)", "a.open == b.open", 5),
    "simpleHyperCubeTest_Matches.txt": _t(ABC, "a.open > c.open", 5),
    "Sensors_GroupBYKey_1_Matches.txt": _t(SENSOR_SEQ, SENSORS, 180),
    "Sensors_short_Matches.txt": _t(SENSOR_SEQ, SENSORS, 300),
    "Sensors_Matches.txt": _t(SENSOR_SEQ, SENSORS, 180),
    "Sensors_long_time_Matches.txt": _t(SENSOR_SEQ, SENSORS, 120),
    "HyperCubeMultyEventTypes_Matches.txt": _t(SENSOR_SEQ, SENSORS, 300),
}


UNTRANSLATED: dict[str, str] = {
    "singleType1PolicyMatches.txt": (
        "OpenCEP's MATCH_NEXT is defined by its evaluation tree (an AMZN event joins only the "
        "first partial match of each tree node it reaches, here (AAPL 9:00, AMZN 9:01), which "
        "later fails a.open > c.open); inev's skip-till-next-match is declarative (SASE's) and "
        "keeps (AAPL 9:01, AMZN 9:01, AVID 9:01) too"
    ),
}


REFUSALS = {
    # offset -1 with first_index 1 and second_index 2: NEXT of a position
    "KC_Condition_Failure_01": (
        "KL(AND(GOOG a, GOOG b, GOOG c)){1,3}",
        "a.peak < b.peak AND b.peak < c.peak AND NEXT(a[2]).peak < 1 + a[3].peak",
    ),
    # offset -1 with second_index 2: NEXT and a position in one conjunct
    "KC_Condition_Failure_02": (
        "KL(AND(GOOG a, GOOG b, GOOG c)){1,3}",
        "a.peak < b.peak AND b.peak < c.peak AND NEXT(a).peak < 1 + a[3].peak",
    ),
    # offset -1 with first_index 2
    "KC_Condition_Failure_03": (
        "KL(AND(GOOG a, GOOG b, GOOG c)){1,3}",
        "a.peak < b.peak AND b.peak < c.peak AND a[3].peak < 1 + NEXT(a).peak",
    ),
}
