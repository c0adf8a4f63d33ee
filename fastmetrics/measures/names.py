"""The names trec_eval and ir_measures users type, read as fastmetrics measure specs.

:func:`external_spec` turns ``map``, ``P_10`` / ``P.10``, ``recip_rank``, ``Rprec``,
``recall_100``, ``success_10``, ``map_cut_100``, ``iprec_at_recall_0.50``, ``num_ret`` ...
(trec_eval's names, as ``trec_eval -q`` prints them and ``-m`` takes them) and ``AP``,
``AP@100``, ``P@10``, ``R@100``, ``RR``, ``RR@10``, ``Success@10``, ``NumRet``, ``IPrec@0.5``
(ir_measures' names) into the spec of the registered measure computing the same number, e.g.
``"P_10"`` into ``"precision_at_k(k=10)"``. :func:`fastmetrics.measures.registry.parse_spec`
reads every name through it, so each spelling gives the same spec and the same result key.

trec_eval's names are matched as trec_eval spells them, whatever the case (``P_10``, ``p_10``);
ir_measures' names only in their own case, because ``ap`` is already scikit-learn's
``average_precision`` (a curve measure): ``AP`` is ir_measures' (and trec_eval's) average
precision of a ranked list, ``ranked_ap``.
"""

from __future__ import annotations

import re

# trec_eval's measure (lower case) -> (registered measure, the parameter its suffix sets)
_TREC = {
    "map": ("ranked_ap", None),
    "map_cut": ("ranked_ap", "cutoff"),
    "p": ("precision_at_k", "k"),
    "recall": ("recall_at_k", "k"),
    "recip_rank": ("reciprocal_rank", None),
    "rprec": ("r_precision", None),
    "success": ("success_at_k", "k"),
    "iprec_at_recall": ("interpolated_precision", "recall"),
    "num_ret": ("num_ret", None),
    "num_rel": ("num_rel", None),
    "num_rel_ret": ("num_rel_ret", None),
    "ndcg": ("ndcg", None),
    "ndcg_cut": ("ndcg", "k"),
    "bpref": ("bpref", None),
    # trec_eval prints GMAP, exp of the mean of its per-topic log AP: gmap's pooled (micro) value;
    # its per-topic values (trec_eval -q) are log_ap's
    "gm_map": ("gmap", None),
}
# ir_measures' measure (its own case) -> (registered measure, the parameter its @ sets, whether
# the @ may be left out: AP and RR read the whole list without one, P@k and R@k need theirs)
_IR_MEASURES = {
    "AP": ("ranked_ap", "cutoff", True),
    "P": ("precision_at_k", "k", False),
    "R": ("recall_at_k", "k", False),
    "RR": ("reciprocal_rank", "cutoff", True),
    "Success": ("success_at_k", "k", False),
    "Rprec": ("r_precision", None, True),
    "R-Prec": ("r_precision", None, True),
    "NumRet": ("num_ret", None, True),
    "NumRel": ("num_rel", None, True),
    "NumRelRet": ("num_rel_ret", None, True),
    "IPrec": ("interpolated_precision", "recall", False),
    "nDCG": ("ndcg", "k", True),
    "Bpref": ("bpref", None, True),
    "Judged": ("judged_at_k", "k", False),
}
_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"
_TREC_FORM = re.compile(rf"([a-z_]+?)(?:[_.]{_NUMBER})?")
_IR_FORM = re.compile(rf"([A-Za-z-]+)(?:@{_NUMBER})?")


def external_spec(text: str) -> str | None:
    """The fastmetrics spec of a trec_eval or ir_measures measure name, or None for any other text.

    Parameters
    ----------
    text : str
        A name as trec_eval (``P_10``, ``P.10``, ``ndcg_cut_10`` style: the parameter after
        ``_`` or ``.``) or ir_measures (``P@10``) write it.

    Returns
    -------
    str or None
        A spec :func:`~fastmetrics.measures.registry.parse_spec` reads (``"precision_at_k(k=10)"``),
        or None when the text is neither tool's name of a registered measure.
    """
    if not isinstance(text, str):
        return None
    text = text.strip()
    found = _IR_FORM.fullmatch(text)
    if found and found.group(1) in _IR_MEASURES:
        name, param, optional = _IR_MEASURES[found.group(1)]
        if (found.group(2) is None and optional) or (found.group(2) is not None and param is not None):
            return _spec(name, param, found.group(2))
    found = _TREC_FORM.fullmatch(text.lower())
    if found and found.group(1) in _TREC:
        name, param = _TREC[found.group(1)]
        if (found.group(2) is None) == (param is None):
            return _spec(name, param, found.group(2))
    return None


def _spec(name: str, param: str | None, value: str | None) -> str:
    return name if value is None else f"{name}({param}={value})"


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of specs, keeping commas inside parentheses.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
        The specs, stripped; empty items dropped.
    """
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return [s for s in out if s]
