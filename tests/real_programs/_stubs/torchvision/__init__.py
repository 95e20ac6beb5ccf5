"""Data stand-in for the few torchvision names the vendored programs use (torchvision is not
installed in either environment, and its datasets download). ``datasets.MNIST`` and
``datasets.FashionMNIST`` return small deterministic synthetic 28x28 uint8 images (numpy,
seeded; 10 classes, each a fixed random stroke pattern plus noise) instead of downloading;
``transforms`` implements ``Compose``, ``ToTensor``, ``Normalize``, ``Lambda``;
``utils.save_image`` writes nothing. Works under PyTorch and under ferrograd alike (it imports
``torch``, which the runner maps)."""

from . import datasets, transforms, utils  # noqa: F401
