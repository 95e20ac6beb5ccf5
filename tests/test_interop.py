"""Zero-copy exchange with NumPy and through DLPack, PyTorch's rules: each test writes through
one side and reads the other (the assertions hold under ``import torch`` too, but for the
widening of dtypes ferrograd does not have, a documented difference: PyTorch shares int32)."""

import gc

import ferrograd as torch
import numpy as np
import pytest


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = torch.from_numpy(a)
    assert t.data_ptr() == a.__array_interface__["data"][0]
    a[0, 0] = 100.0
    assert t[0, 0].item() == 100.0
    t.mul_(2)  # an in-place op on the tensor: NumPy sees it, the version counter counts it
    assert a.tolist() == [[200.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    assert t._version == 1


def test_from_numpy_keeps_strides_and_the_array_alive():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    t = torch.from_numpy(a.T)
    assert t.shape == (4, 3) and t.stride() == (1, 4) and not t.is_contiguous()
    del a
    gc.collect()
    assert t.tolist()[1] == [1.0, 5.0, 9.0]
    i = torch.from_numpy(np.arange(5)[::2])
    assert i.dtype == torch.int64 and i.tolist() == [0, 2, 4] and i.stride() == (2,)


def test_from_numpy_refuses_negative_strides():
    with pytest.raises(ValueError, match="negative"):
        torch.from_numpy(np.arange(4.0)[::-1])


def test_numpy_shares_and_refuses_tensors_that_require_grad():
    t = torch.zeros(2, 2)
    n = t.numpy()
    n[1, 0] = 7.0
    assert t.tolist() == [[0.0, 0.0], [7.0, 0.0]]
    t[0, 1] = 3.0
    assert n[0, 1] == 3.0
    assert np.shares_memory(np.asarray(t), n)
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    with pytest.raises(RuntimeError, match="requires grad"):
        np.asarray(x)
    forced = x.numpy(force=True)
    assert forced.tolist() == [1.0, 1.0, 1.0]


def test_numpy_of_a_view_is_a_view():
    t = torch.arange(12.0).reshape(3, 4)
    col = t[:, 1].numpy()
    assert col.strides == (16,)
    col[2] = -1.0
    assert t[2, 1].item() == -1.0


def test_asarray_with_a_dtype_converts():
    t = torch.tensor([1.5, 2.5])
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.asarray(t, dtype=np.float64).tolist() == [1.5, 2.5]


def test_dtypes_ferrograd_lacks_are_copied_widened():
    a = np.array([1, 2, 3], dtype=np.uint16)
    t = torch.from_numpy(a)
    a[0] = 9
    assert t.dtype == torch.int64 and t.tolist() == [1, 2, 3]
    b = np.array([True, False])
    assert torch.from_numpy(b).tolist() == [True, False]
    assert torch.from_numpy(np.zeros((3, 0), dtype=np.float32)).shape == (3, 0)
    assert torch.from_numpy(np.array(True)).shape == ()


@pytest.mark.parametrize("kind", ["uint8", "int8", "int16", "int32"])
def test_narrow_integer_arrays_are_shared_with_their_dtype(kind):
    """As PyTorch's: a uint8 image or int32 index array keeps its dtype and its memory."""
    a = np.arange(6, dtype=kind).reshape(2, 3)
    t = torch.from_numpy(a)
    a[0, 0] = 42
    assert str(t.dtype) == f"torch.{kind}" and t[0, 0].item() == 42
    t[1, 2] = 7
    assert a[1, 2] == 7 and t.numpy().dtype == np.dtype(kind)
    assert np.from_dlpack(t).dtype == np.dtype(kind)
    assert torch.from_dlpack(a).dtype == t.dtype


def test_tensor_of_an_array_copies():
    a = np.ones(3, dtype=np.float32)
    t = torch.tensor(a)
    a[0] = 5.0
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_dlpack_to_numpy_shares_and_is_writable():
    t = torch.arange(6.0).reshape(2, 3)
    a = np.from_dlpack(t)
    a[0, 1] = 42.0
    assert t[0, 1].item() == 42.0
    t.add_(1)
    assert a[1, 2] == 6.0
    assert t.__dlpack_device__() == (1, 0)


def test_dlpack_from_numpy_shares():
    a = np.arange(5, dtype=np.int64)
    t = torch.from_dlpack(a)
    a[0] = 9
    assert t.tolist() == [9, 1, 2, 3, 4]
    t[4] = -1
    assert a[4] == -1
    b = torch.from_dlpack(np.array([True, False, True]))
    assert b.dtype == torch.bool and b.tolist() == [True, False, True]


def test_capsules_are_consumed_once():
    t = torch.ones(3)
    capsule = torch.utils.dlpack.to_dlpack(t)
    u = torch.utils.dlpack.from_dlpack(capsule)
    assert u.data_ptr() == t.data_ptr()
    u[0] = 5.0
    assert t[0].item() == 5.0
    with pytest.raises((TypeError, RuntimeError, ValueError)):
        torch.from_dlpack(capsule)
    del t, u, capsule
    gc.collect()


def test_dlpack_refuses_tensors_that_require_grad():
    with pytest.raises(BufferError, match="require gradient"):
        torch.ones(2, requires_grad=True).__dlpack__()


def test_two_tensors_over_one_array_write_safely():
    """Two `from_numpy` of one array are two storages over the same memory: in-place ops
    between them read a snapshot of the source (NumPy's `a[1:] = a[:-1]` result; PyTorch
    copies forward over what it reads and gives zeros here)."""
    a = np.arange(6, dtype=np.float32)
    t, u = torch.from_numpy(a), torch.from_numpy(a)
    t.add_(u)
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    torch.from_numpy(a[1:]).copy_(torch.from_numpy(a[:-1]))
    assert a.tolist() == [0.0, 0.0, 2.0, 4.0, 6.0, 8.0]
