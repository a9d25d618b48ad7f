"""DLPack producers for the tests, made with ctypes: a tensor on any device type with any dtype
code, so that the CUDA path and bfloat16 can be driven on a machine without a GPU or a library
that has them. Each export counts the deleter calls, so a test can check that gemmtune lets go of
every capsule it takes."""
import ctypes

import numpy as np

KDL_CPU, KDL_CUDA = 1, 2
KDL_INT, KDL_FLOAT, KDL_BFLOAT = 0, 2, 4


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@DESTRUCTOR
def _destroy_capsule(capsule):
    # As every producer does: an unconsumed capsule calls its tensor's deleter when it dies.
    if _capsule_is_valid(capsule, b"dltensor"):
        managed = ctypes.cast(_capsule_pointer(capsule, b"dltensor"), ctypes.POINTER(DLManagedTensor))
        managed.contents.deleter(managed)


class Tensor:
    """A 2-D tensor over `storage` (a numpy array that keeps the bytes), or over device memory at
    `address`, exported through DLPack.

    device_type and dtype code/bits are whatever the test says; strides are in elements (None
    for DLPack's compact row-major)."""

    def __init__(self, storage, shape, code, bits, device_type=KDL_CPU, device_id=0, strides=None, offset=0,
                 address=None):
        self.storage = storage
        self.address = storage.ctypes.data if address is None else address  # device memory: its pointer
        self.shape = shape
        self.code, self.bits = code, bits
        self.device = (device_type, device_id)
        self.strides = strides
        self.offset = offset
        self.exports = 0
        self.deleted = 0
        self.streams = []
        self._alive = {}

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        self.exports += 1
        shape = (ctypes.c_int64 * 2)(*self.shape)
        strides = (ctypes.c_int64 * 2)(*self.strides) if self.strides else None
        managed = DLManagedTensor()
        managed.dl_tensor.data = self.address
        managed.dl_tensor.device = DLDevice(*self.device)
        managed.dl_tensor.ndim = 2
        managed.dl_tensor.dtype = DLDataType(self.code, self.bits, 1)
        managed.dl_tensor.shape = shape
        managed.dl_tensor.strides = strides
        managed.dl_tensor.byte_offset = self.offset
        key = self.exports

        def delete(_):
            self.deleted += 1
            self._alive.pop(key, None)

        managed.deleter = DELETER(delete)
        self._alive[key] = (managed, shape, strides, managed.deleter)
        return _capsule_new(ctypes.addressof(managed), b"dltensor", ctypes.cast(_destroy_capsule, ctypes.c_void_p))


def from_numpy(array, **kwargs):
    """A Tensor over a numpy array's memory, with its dtype and strides."""
    codes = {np.float32: (KDL_FLOAT, 32), np.float16: (KDL_FLOAT, 16), np.int8: (KDL_INT, 8), np.int32: (KDL_INT, 32)}
    code, bits = codes[array.dtype.type]
    strides = [s // array.itemsize for s in array.strides]
    return Tensor(array, array.shape, code, bits, strides=strides, **kwargs)


def bfloat16_bits(values):
    """The bfloat16 patterns of float32 values that bfloat16 holds exactly."""
    bits = values.astype(np.float32).view(np.uint32)
    assert not (bits & 0xFFFF).any(), "a value bfloat16 cannot hold exactly"
    return (bits >> 16).astype(np.uint16)


class Forwarding:
    """Hides a numpy array behind its own __dlpack__, as a tensor of another library would be."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()
