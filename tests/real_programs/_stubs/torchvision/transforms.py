import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class ToTensor:
    def __call__(self, pic):
        arr = np.asarray(pic, dtype=np.float32) / 255.0
        if arr.ndim == 2:
            arr = arr[None, :, :]
        elif arr.ndim == 3:  # H x W x C, as an image array is stored
            arr = arr.transpose(2, 0, 1)
        return torch.from_numpy(np.ascontiguousarray(arr))


class Normalize:
    def __init__(self, mean, std):
        self.mean = mean
        self.std = std

    def __call__(self, t):
        mean = torch.tensor(self.mean, dtype=t.dtype).view(-1, 1, 1)
        std = torch.tensor(self.std, dtype=t.dtype).view(-1, 1, 1)
        return (t - mean) / std


class Lambda:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return self.fn(x)


class RandomHorizontalFlip:
    """Flips a C x H x W tensor left-right with probability ``p`` (draw: ``torch.rand(1)``)."""

    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, t):
        if torch.rand(1) < self.p:
            if isinstance(t, np.ndarray):  # H x W (x C) image array
                return np.ascontiguousarray(t[:, ::-1])
            return t.flip(-1)
        return t


class Pad:
    """Zero-pads the last two dimensions of a C x H x W tensor by ``padding`` on each side."""

    def __init__(self, padding):
        self.padding = padding

    def __call__(self, t):
        if isinstance(t, np.ndarray):
            p = self.padding
            widths = [(p, p), (p, p)] + [(0, 0)] * (t.ndim - 2)
            return np.pad(t, widths)
        return torch.nn.functional.pad(t, (self.padding,) * 4)


class RandomCrop:
    """Crops a C x H x W tensor to ``size`` at a random corner (draws: ``torch.randint``)."""

    def __init__(self, size):
        self.size = (size, size) if isinstance(size, int) else tuple(size)

    def __call__(self, t):
        h, w = self.size
        if isinstance(t, np.ndarray):
            H, W = t.shape[0], t.shape[1]
            i = int(torch.randint(0, H - h + 1, size=(1,)).item())
            j = int(torch.randint(0, W - w + 1, size=(1,)).item())
            return t[i : i + h, j : j + w]
        H, W = t.shape[-2], t.shape[-1]
        i = int(torch.randint(0, H - h + 1, size=(1,)).item())
        j = int(torch.randint(0, W - w + 1, size=(1,)).item())
        return t[..., i : i + h, j : j + w]
