import numpy as np

_N_TRAIN = 512
_N_TEST = 256


def _make(n, seed):
    templates = np.random.RandomState(1234).rand(10, 28, 28)
    templates = (templates > 0.8).astype(np.float64)
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, size=n)
    noise = rng.rand(n, 28, 28)
    images = np.clip(templates[labels] * 200 + noise * 55, 0, 255).astype(np.uint8)
    return images, labels


class MNIST:
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        self.data, self.targets = _make(_N_TRAIN if train else _N_TEST, 0 if train else 1)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class FashionMNIST(MNIST):
    pass


class CIFAR10:
    """Synthetic stand-in: 32x32x3 uint8 images (H x W x C, as CIFAR stores them), 10 classes
    each a fixed random colour pattern plus noise; 512 train / 256 test images."""

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        n = _N_TRAIN if train else _N_TEST
        templates = np.random.RandomState(4321).rand(10, 32, 32, 3)
        rng = np.random.RandomState(2 if train else 3)
        labels = rng.randint(0, 10, size=n)
        noise = rng.rand(n, 32, 32, 3)
        self.data = np.clip(templates[labels] * 180 + noise * 75, 0, 255).astype(np.uint8)
        self.targets = [int(v) for v in labels]
        self.classes = [
            "airplane",
            "automobile",
            "bird",
            "cat",
            "deer",
            "dog",
            "frog",
            "horse",
            "ship",
            "truck",
        ]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = self.data[index], self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class FakeData:
    """Stand-in for torchvision's FakeData: ``size`` random uint8 images of ``image_size``
    (C, H, W), returned H x W x C, each drawn from numpy seeded by its index (torchvision draws
    them with torch), and a random class."""

    def __init__(
        self,
        size=1000,
        image_size=(3, 224, 224),
        num_classes=10,
        transform=None,
        target_transform=None,
        random_offset=0,
    ):
        self.size = size
        self.image_size = image_size
        self.num_classes = num_classes
        self.transform = transform
        self.target_transform = target_transform
        self.random_offset = random_offset

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        rng = np.random.RandomState(index + self.random_offset)
        c, h, w = self.image_size
        img = rng.randint(0, 256, size=(h, w, c)).astype(np.uint8)
        if c == 1:
            img = img[:, :, 0]
        target = int(rng.randint(0, self.num_classes))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target
