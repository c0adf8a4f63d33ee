"""Scores: measure values over the batch axes of a ConfusionTensor."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from .._errors import InputError, ParameterError
from .._html import table_html
from .._show import table_text
from .._stages import labels_of
from .labels import Labelled, check_layout


class Scores(Labelled):
    """Measure values ``values[measure, ...]`` over the batch axes of a ConfusionTensor.

    Parameters
    ----------
    values : array_like, shape (n_measures, ...)
        One row per measure over the batch axes; stored as float64.
    measures : sequence of str
        The measure labels, one per row of ``values``.
    axes : sequence of str
        Names of the batch axes (the axes of ``values`` after the first).
    coords : mapping of str to array_like
        Labels along the axes (see :mod:`fastmetrics.tensor.labels`).
    coord_axes : mapping of str to str, optional
        The axis each coordinate lies along, where it differs from the coordinate's name.
    low, high : array_like, optional
        Confidence interval bounds, the shape of ``values`` (``evaluate(..., ci=0.95)``).
    """

    def __init__(self, values, measures: Sequence[str], axes, coords, *, coord_axes=None, low=None, high=None):
        self.values = np.asarray(values, dtype=np.float64)
        self.low = None if low is None else np.asarray(low, dtype=np.float64)
        self.high = None if high is None else np.asarray(high, dtype=np.float64)
        self.measures = tuple(measures)
        self.axes = tuple(axes)
        self.coords = {k: np.asarray(v) for k, v in coords.items()}
        self.coord_axes = dict(coord_axes or {})
        if self.values.shape[0] != len(self.measures):
            raise InputError(f"{len(self.measures)} measure names for {self.values.shape[0]} value rows.")
        check_layout(self.values.shape[1:], self.axes, self.coords, self.coord_axes)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Shape of the batch axes: ``values.shape[1:]``."""
        return self.values.shape[1:]

    def __repr__(self) -> str:
        """The values, one column per measure (see :meth:`view`)."""
        table, title, note = self.view()
        return table_text(table, title, note)

    def _repr_html_(self) -> str:
        """A notebook's view: the table of :meth:`view`, each interval beside its value."""
        table, title, note = self.view()
        return table_html(table, title + (f" ({note})" if note else ""))

    def view(self) -> tuple[pa.Table, str, str]:
        """What ``repr`` and a notebook show: the values, one column per measure.

        One row per cell, or, with a ``system`` axis beside others, one row per system and each
        measure's mean over the other axes (NaN left out of the mean).

        Returns
        -------
        table : pyarrow.Table
            :meth:`to_arrow` with ``wide=True``, or the systems' means.
        title : str
            The measures and the axes.
        note : str
            How the table was reduced (empty when it shows every value).
        """
        dims = " x ".join(f"{a}={n:,}" for a, n in zip(self.axes, self.batch_shape))
        title = f"Scores: {', '.join(self.measures)}" + (f" over {dims}" if dims else "")
        others = tuple(i + 1 for i, a in enumerate(self.axes) if a != "system")
        if "system" not in self.axes or not others or "system" not in self.coords:
            return self.to_arrow(wide=True), title, ""
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a system undefined everywhere: NaN
            means = np.nanmean(self.values, axis=others)
        columns = {"system": pa.array(self.coords["system"].tolist())}
        columns.update({m: pa.array(means[i], pa.float64()) for i, m in enumerate(self.measures)})
        over = ", ".join(a for a in self.axes if a != "system")
        return pa.table(columns), title, f"means over {over} (NaN left out); .to_arrow() holds every value"

    def __getitem__(self, measure: str) -> np.ndarray:
        """Values of one measure, shape = batch shape.

        The measure in any spelling of its spec: ``"precision_at_k(k=10)"``, ``"P_10"`` and
        ``"P@10"`` find the values labelled ``precision_at_k`` (k = 10 being its default)."""
        if measure not in self.measures:
            measure = next((label for label in labels_of(measure) if label in self.measures), measure)
        if measure not in self.measures:
            raise ParameterError(f"No measure {measure!r} in these scores; they hold {', '.join(self.measures)}.")
        return self.values[self.measures.index(measure)]

    def sel(self, **labels) -> Scores:
        """Select by label: a scalar drops the axis, a list keeps it (``s.sel(topic="t1")``)."""
        index, axes, coords = self._select(labels)
        full = (slice(None),) + index
        bounds = {k: None if v is None else v[full] for k, v in (("low", self.low), ("high", self.high))}
        return Scores(self.values[full], self.measures, axes, coords, coord_axes=self.coord_axes, **bounds)

    def to_arrow(self, wide: bool = False) -> pa.Table:
        """Tidy table: the batch coordinate columns, then ``measure`` and ``value``.

        One row per (measure, cell), measures outermost. String columns are dictionary-encoded.
        With confidence intervals, ``ci_low`` and ``ci_high`` follow ``value``.

        Parameters
        ----------
        wide : bool, default False
            One row per cell and one column per measure instead (``f1``, then ``f1 ci_low``,
            ``f1 ci_high`` with intervals).

        Returns
        -------
        pyarrow.Table
        """
        if wide:
            out = self._coord_columns()
            for i, measure in enumerate(self.measures):
                out[measure] = pa.array(self.values[i].reshape(-1), pa.float64())
                if self.low is not None:
                    out[f"{measure} ci_low"] = pa.array(self.low[i].reshape(-1), pa.float64())
                    out[f"{measure} ci_high"] = pa.array(self.high[i].reshape(-1), pa.float64())
            return pa.table(out)
        n_cells = int(np.prod(self.batch_shape, dtype=np.int64))
        out = self._coord_columns(repeat=len(self.measures))
        index = np.repeat(np.arange(len(self.measures), dtype=np.int32), n_cells)
        out["measure"] = pa.DictionaryArray.from_arrays(pa.array(index), pa.array(list(self.measures), pa.string()))
        out["value"] = pa.array(self.values.reshape(-1), pa.float64())
        if self.low is not None:
            out["ci_low"] = pa.array(self.low.reshape(-1), pa.float64())
            out["ci_high"] = pa.array(self.high.reshape(-1), pa.float64())
        return pa.table(out)

    def to_pandas(self, wide: bool = False):
        """The table of :meth:`to_arrow` as a pandas DataFrame (pandas must be installed).

        Parameters
        ----------
        wide : bool, default False

        Returns
        -------
        pandas.DataFrame
        """
        return self.to_arrow(wide).to_pandas()

    def to_polars(self, wide: bool = False):
        """The table of :meth:`to_arrow` as a polars DataFrame (polars must be installed).

        Parameters
        ----------
        wide : bool, default False

        Returns
        -------
        polars.DataFrame
        """
        try:
            import polars
        except ImportError:
            raise ParameterError("to_polars needs polars: pip install polars.") from None
        return polars.from_arrow(self.to_arrow(wide))
