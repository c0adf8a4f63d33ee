"""Label columns and schema checks: binary or not, class label sets, required columns.

The hot path (encoding record batches for the counting kernels) lives in
:mod:`fastmetrics.count.encoders`; these helpers serve the plan (which values make a task
binary, which classes there are) and the small inputs read whole (count tables, multilabel).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError

COUNT_COLUMNS = ("tp", "fp", "fn", "tn")


def where(part: str) -> str:
    """Return the `` in '<part>'`` suffix naming an input part in messages ('' for an in-memory table)."""
    return "" if part in ("<table>", None) else f" in '{part}'"


def require_columns(columns, required, part: str, purpose: str = "") -> None:
    """Raise an :class:`InputError` naming the ``required`` columns missing from ``columns``.

    ``purpose`` is appended to the list of missing columns (e.g. ``" to group by"``); the message
    ends with the columns present.
    """
    missing = [c for c in required if c not in columns]
    if missing:
        raise InputError(
            f"The input{where(part)} is missing the required column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(repr(c) for c in missing)}{purpose}; columns present: {', '.join(columns)}."
        )


def no_nulls(array, column: str, part: str, offset: int = 0) -> None:
    """Raise an :class:`InputError` naming the first null of ``array``, if it has one.

    ``offset`` is the row of ``part`` the array starts at, so the row named is the part's.
    """
    if array.null_count:
        row = pc.index(pc.is_null(array), True).as_py()
        raise InputError(f"Column '{column}'{where(part)} has a missing (null) value at row {offset + row}.")


def no_nans(array, column: str, part: str, offset: int = 0) -> None:
    """Raise an :class:`InputError` naming the first NaN of a float label column, if it has one.

    A NaN label is a missing label, not a class (scikit-learn refuses it too); ``offset`` as in
    :func:`no_nulls`.
    """
    if pa.types.is_floating(array.type) and len(array):
        nan = pc.is_nan(array)
        if pc.any(nan).as_py():
            row = pc.index(nan, True).as_py()
            raise InputError(
                f"Column '{column}'{where(part)} has a NaN label at row {offset + row}: labels are classes; "
                "drop the row or give it a class."
            )


def not_utf8(array) -> np.ndarray | None:
    """A mask of the values of a string array that are not valid UTF-8, or None when all are.

    Arrow's readers do not all check (Parquet's does not, and an array built from buffers is
    not checked): an id that is not text must be refused where it is met, naming its row, not
    fail later where it is shown. The check is Arrow's validation (fast, in place); the values
    are looked at one by one only when it fails.
    """
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return None
    try:
        array.validate(full=True)
        return None
    except pa.ArrowInvalid:
        pass
    mask = np.zeros(len(array), np.bool_)
    for i, value in enumerate(array.cast(pa.large_binary()).to_pylist()):
        if value is not None:
            try:
                value.decode("utf-8")
            except UnicodeDecodeError:
                mask[i] = True
    return mask if mask.any() else None


def value_at(array, row: int):
    """The Python value of ``array[row]``, and whether it is text.

    ``(value, text)``: the Python value of ``array[row]`` (a dictionary's value), and whether it
    is text or not a string; a string that is not UTF-8 comes as its bytes, ``text`` False."""
    if pa.types.is_dictionary(array.type):
        index = array.indices[row].as_py()
        if index is None:
            return None, True
        array, row = array.dictionary, index
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        raw = array.slice(row, 1).cast(pa.large_binary())[0].as_py()
        try:
            return (None if raw is None else raw.decode("utf-8")), True
        except UnicodeDecodeError:
            return raw, False
    return array[row].as_py(), True


def not_text_error(column: str, part: str, row: int, raw: bytes) -> InputError:
    """The error for an id that is not UTF-8 text."""
    return InputError(
        f"Column '{column}'{where(part)} has a value that is not UTF-8 text at row {row}: {raw!r}; "
        "ids and labels must be text (decode the file to UTF-8)."
    )


def sorted_labels(arrays: list, column: str) -> pa.Array:
    """The sorted distinct values of a column over several chunks."""
    uniques = pa.chunked_array([pc.unique(a) for a in arrays])
    values = pc.unique(uniques.combine_chunks() if uniques.num_chunks else uniques)
    return values.take(pc.sort_indices(values))


def encode_with(
    array, dictionary: pa.Array, column: str, part: str, unknown: str = "which the gold does not know"
) -> np.ndarray:
    """Codes of ``array`` in ``dictionary`` as int32 (dictionary-encode first: fast on repeats)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    encoded = pc.dictionary_encode(array)
    local = pc.index_in(encoded.dictionary, value_set=dictionary)
    if local.null_count:
        bad = encoded.dictionary.filter(pc.is_null(local))[0].as_py()
        raise InputError(f"Column '{column}'{where(part)} has the value {bad!r}, {unknown}.")
    mapping = local.to_numpy(zero_copy_only=False).astype(np.int32)
    return mapping[encoded.indices.to_numpy(zero_copy_only=False)]


def binary_codes(array, column: str, part: str) -> np.ndarray:
    """A bool or 0/1 column as int8 codes; anything else is an error naming the column."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    no_nulls(array, column, part)
    if pa.types.is_boolean(array.type):
        return array.to_numpy(zero_copy_only=False).astype(np.int8)
    if pa.types.is_integer(array.type) or pa.types.is_floating(array.type):
        values = array.to_numpy(zero_copy_only=False)
        bad = (values != 0) & (values != 1)
        if bad.any():
            raise InputError(
                f"Column '{column}'{where(part)} must be binary (bool or 0/1) for binary measures; "
                f"found the value {values[bad][0].item()!r} at row {int(np.argmax(bad))}."
            )
        return values.astype(np.int8)
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        lowered = pc.utf8_lower(array)
        is_true = pc.is_in(lowered, value_set=pa.array(["true", "1", "yes"]))
        is_false = pc.is_in(lowered, value_set=pa.array(["false", "0", "no"]))
        bad = pc.invert(pc.or_(is_true, is_false)).to_numpy(zero_copy_only=False)
        if bad.any():
            raise InputError(
                f"Column '{column}'{where(part)} must be binary (true/false or 0/1) for binary measures; "
                f"found the value {array[int(np.argmax(bad))].as_py()!r} at row {int(np.argmax(bad))}."
            )
        return is_true.to_numpy(zero_copy_only=False).astype(np.int8)
    raise InputError(f"Column '{column}'{where(part)} has type {array.type}; expected bool or 0/1 integers.")


_BINARY_STRINGS = ("true", "false", "1", "0", "yes", "no")


def non_binary_example(values: pa.Array):
    """One value of ``values`` that :func:`binary_codes` would refuse, or None."""
    for v in values.to_pylist():
        probe = pa.array([v], values.type)
        if not is_binary_like(probe):
            return v
    return None


def is_binary_like(values: pa.Array) -> bool:
    """Tell whether the distinct values of a label column fit :func:`binary_codes`.

    Binary-like are booleans, the numbers 0 and 1, and the strings true/false/yes/no/1/0 in any
    case.
    """
    if pa.types.is_boolean(values.type):
        return True
    if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
        return bool(pc.all(pc.is_in(values, value_set=pa.array([0, 1], values.type))).as_py() is not False)
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        lowered = pc.utf8_lower(values)
        return bool(pc.all(pc.is_in(lowered, value_set=pa.array(_BINARY_STRINGS))).as_py() is not False)
    return False


def label_type(types: list, column_names: list[str]) -> pa.DataType:
    """One Arrow type for class labels coming from several columns (ints widen to int64)."""
    kinds = set()
    for t in types:
        if pa.types.is_integer(t):
            kinds.add("int")
        elif pa.types.is_string(t) or pa.types.is_large_string(t):
            kinds.add("str")
        elif pa.types.is_boolean(t):
            kinds.add("bool")
        elif pa.types.is_floating(t):
            kinds.add("float")
        else:
            raise InputError(
                f"Column '{column_names[types.index(t)]}' has type {t}; class labels must be "
                "strings, integers or booleans."
            )
    if kinds == {"bool", "int"}:
        kinds = {"int"}  # predictions as bool against integer classes: False/True are classes 0/1
    if kinds == {"float", "int"}:
        kinds = {"float"}  # numbers compare as numbers (scikit-learn's 1 == 1.0); a NaN is refused when coded
    if len(kinds) > 1:
        described = ", ".join(f"'{c}' is {t}" for c, t in zip(column_names, types))
        raise InputError(f"Class labels must have one type across columns: {described}.")
    return {"int": pa.int64(), "str": pa.string(), "bool": pa.bool_(), "float": pa.float64()}[kinds.pop()]


def class_labels(arrays: list, column_names: list[str], given=None) -> pa.Array:
    """Return the class labels of one or more label columns, in a common Arrow type.

    Without ``given``, the classes are the sorted union of the values of ``arrays``. With
    ``given``, they are ``given`` in its order, after checking that it has no duplicates, that its
    values have the labels' type and that it covers every value found.
    """
    target = label_type([a.type for a in arrays], column_names)
    arrays = [a.cast(target) for a in arrays]
    found = sorted_labels(arrays, "/".join(column_names))
    if found.null_count:
        raise InputError(f"The label column(s) {', '.join(column_names)} have missing (null) values.")
    if given is None:
        return found
    try:
        classes = pa.array(list(given)).cast(target)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        example = found[0].as_py() if len(found) else None
        raise InputError(
            f"The classes given ({', '.join(map(str, list(given)[:10]))}) are not values of the labels' "
            f"type {target}: column(s) {', '.join(column_names)} hold values such as "
            f"{example!r}."
        ) from None
    if len(pc.unique(classes)) != len(classes):
        raise InputError("The classes given contain duplicates.")
    unknown = pc.filter(found, pc.invert(pc.is_in(found, value_set=classes)))
    if len(unknown):
        raise InputError(
            f"The labels contain {unknown[0].as_py()!r}, which is not among the classes given "
            f"({', '.join(map(str, classes.to_pylist()[:10]))}{' ...' if len(classes) > 10 else ''})."
        )
    return classes


def weight_values(array, column: str, part: str) -> np.ndarray:
    """A weight column as float64: numbers, no nulls, finite and >= 0 (scikit-learn's sample_weight)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not (pa.types.is_floating(array.type) or pa.types.is_integer(array.type)):
        raise InputError(f"Column '{column}'{where(part)} has type {array.type}; expected numbers.")
    no_nulls(array, column, part)
    values = array.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    if not np.isfinite(values).all():
        row = int(np.argmin(np.isfinite(values)))
        raise InputError(
            f"Column '{column}'{where(part)} must hold finite weights; found {values[row].item()!r} at row {row}."
        )
    if values.size and values.min() < 0:
        row = int(np.argmin(values))
        raise InputError(
            f"Column '{column}'{where(part)} must hold weights >= 0; found {values[row].item()!r} at row {row}."
        )
    return values


def check_unique_items(table: pa.Table, keys: list[str], part: str) -> None:
    """Each (system, topic, item) may appear once."""
    grouped = table.select(keys).group_by(keys).aggregate([([], "count_all")])
    dup = grouped.filter(pc.greater(grouped.column("count_all"), 1))
    if dup.num_rows:
        row = {k: dup.column(k)[0].as_py() for k in keys}
        shown = ", ".join(f"{k}={v!r}" for k, v in row.items())
        raise InputError(
            f"Duplicated ({', '.join(keys)}){where(part)}: {shown} appears {dup.column('count_all')[0].as_py()} "
            "times; each item may appear once per (system, topic)."
        )


def empty_input(src) -> InputError:
    """The error for an input with no rows, naming its files (a header only is a common cause)."""
    names = list(getattr(src, "names", []) or ["input"])
    shown = ", ".join(f"'{n}'" for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return InputError(f"The input {shown} has no rows (only a header, or empty files).")


def text_names(schema: pa.Schema, context: str) -> list[str]:
    """Return a schema's column names, checked to be text.

    An InputError (``context``: what was being read) when one is not UTF-8 text, which pyarrow
    gives as a UnicodeDecodeError on the first look at the names."""
    try:
        return schema.names
    except UnicodeDecodeError:
        raise InputError(f"{context}: a column name is not UTF-8 text.") from None


def python_value(column, row: int):
    """The Python value of ``column[row]`` (a dictionary's value)."""
    return value_at(column.combine_chunks(), row)[0]


def used_values(dictionary: pa.Array, present: np.ndarray) -> pa.Array:
    """Return the distinct values of ``dictionary`` at the positions ``present`` marks.

    ``present`` holds one byte or bool a value: a dictionary column's distinct values, unsorted,
    once the indices its rows use are known."""
    return pc.unique(dictionary.filter(pa.array(present.view(np.bool_))))
