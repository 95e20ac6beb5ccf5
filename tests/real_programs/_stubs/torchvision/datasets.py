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
