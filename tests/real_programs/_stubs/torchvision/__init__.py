"""Data stand-in for the few torchvision names the vendored programs use (torchvision is not
installed in either environment, and its datasets download). ``datasets.MNIST`` and
``datasets.FashionMNIST`` return small deterministic synthetic 28x28 uint8 images (numpy,
seeded; 10 classes, each a fixed random stroke pattern plus noise) instead of downloading;
``datasets.CIFAR10`` (synthetic 32x32x3) and ``datasets.FakeData`` likewise; ``transforms``
implements ``Compose``, ``ToTensor``, ``Normalize``, ``Lambda``, ``RandomHorizontalFlip``, ``Pad``,
``RandomCrop``;
``utils.save_image`` writes nothing. Works under PyTorch and under ferrograd alike (it imports
``torch``, which the runner maps)."""

from . import datasets, transforms, utils  # noqa: F401
