"""``PackedSequence``'s casts to the dtypes ferrograd lacks (``int``, ``short``, ``char``,
``byte``, ``half``, ``bfloat16``) refuse with a ``TypeError`` naming the dtype, rather than
returning data of another dtype; the casts to dtypes it has convert ``data`` only."""

import ferrograd as torch
import pytest
from ferrograd.nn.utils.rnn import pack_sequence

MISSING = [
    ("half", "float16"),
    ("bfloat16", "bfloat16"),
]


def packed():
    return pack_sequence([torch.randn(3, 2), torch.randn(2, 2)])


@pytest.mark.parametrize(("method", "dtype"), MISSING)
def test_missing_dtype_casts_refuse(method, dtype):
    with pytest.raises(TypeError, match=f"ferrograd has no {dtype} dtype"):
        getattr(packed(), method)()


def test_existing_dtype_casts_convert_data_only():
    ps = packed()
    for method, dtype in [
        ("double", torch.float64),
        ("float", torch.float32),
        ("int", torch.int32),
        ("short", torch.int16),
        ("char", torch.int8),
        ("byte", torch.uint8),
    ]:
        cast = getattr(ps, method)()
        assert type(cast).__name__ == "PackedSequence"
        assert cast.data.dtype == dtype
        assert cast.batch_sizes.tolist() == ps.batch_sizes.tolist()
    assert ps.long().data.dtype == torch.int64
