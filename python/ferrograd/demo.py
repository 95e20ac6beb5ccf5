"""The ferrograd demo: train a handwritten-digit classifier (``python -m ferrograd.demo``).

The data set is scikit-learn's bundled digits (1,797 images of 8x8 pixels, shipped inside the
package: nothing is downloaded). The training is ordinary PyTorch code run by ferrograd: a
``TensorDataset`` and a shuffling ``DataLoader``, a small CNN (two 3x3 ``Conv2d`` layers, a
``MaxPool2d`` and a ``Linear`` classifier; ``--model mlp`` for a 64-128-10 MLP) trained with
``CrossEntropyLoss``, ``AdamW`` and a ``OneCycleLR`` schedule, a tqdm progress bar per epoch with
the running loss, then the test accuracy. When PyTorch is importable the very same function
trains the same model with ``torch`` in the same process, and the time per epoch of both is
printed side by side.

Two pictures are written to ``--out`` (default: the current directory):
``ferrograd_demo_curves.png`` (loss and accuracy per epoch, matplotlib) and
``ferrograd_demo_graph.svg``, the autograd graph of one training step drawn by
:func:`ferrograd.viz.make_dot` (when Graphviz's ``dot`` program is missing, the DOT text is
written to ``ferrograd_demo_graph.dot`` instead, with the command that renders it).

Its extra dependencies come with the package's ``demo`` extra: ``pip install 'ferrograd[demo]'``
(scikit-learn, tqdm, matplotlib, graphviz); the picture of the graph also needs Graphviz's
``dot`` program (``apt-get install graphviz``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import ferrograd
from ferrograd.viz import make_dot

__all__ = ["DemoResult", "TrainResult", "build_model", "load_data", "main", "run", "train"]

#: The models ``--model`` offers, as shown in the demo's output.
MODELS = {
    "cnn": "Conv2d(1, 16, 3) -> ReLU -> Conv2d(16, 32, 3) -> ReLU -> MaxPool2d(2) "
    "-> Linear(512, 10)",
    "mlp": "Linear(64, 128) -> ReLU -> Linear(128, 10)",
}

#: Where each picture goes in the output directory.
CURVES_FILE = "ferrograd_demo_curves.png"
GRAPH_STEM = "ferrograd_demo_graph"


@dataclass
class TrainResult:
    """What one training run gives: per-epoch training loss (mean over the epoch), test accuracy
    and wall time, and the final test accuracy."""

    library: str
    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    epoch_seconds: list[float] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        """The test accuracy after the last epoch (a fraction in [0, 1])."""
        return self.accuracies[-1]

    @property
    def seconds_per_epoch(self) -> float:
        """The mean wall time of one epoch (training and evaluation)."""
        return sum(self.epoch_seconds) / len(self.epoch_seconds)


@dataclass
class DemoResult:
    """The outcome of :func:`run`: ferrograd's training, PyTorch's when it ran, and the paths of
    the files written (the graph is an ``.svg``, or a ``.dot`` when ``dot`` is missing)."""

    ferrograd: TrainResult
    torch: TrainResult | None
    curves_path: str | None
    graph_path: str


def load_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's digits, split 75/25 (stratified) and standardised with the training set's
    statistics: ``(x_train, y_train, x_test, y_test)``, images flattened to 64 float32 values."""
    try:
        from sklearn.datasets import load_digits  # type: ignore[import-untyped,unused-ignore]
        from sklearn.model_selection import (  # type: ignore[import-untyped,unused-ignore]
            train_test_split,
        )
    except ImportError as e:
        raise ImportError(
            "the demo needs scikit-learn for its data set: pip install 'ferrograd[demo]' "
            "(or pip install scikit-learn tqdm matplotlib graphviz)"
        ) from e
    digits = load_digits()
    x = digits.data.astype(np.float32)
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.25, random_state=seed, stratify=y
    )
    mean = x_train.mean(axis=0)
    std = x_train.std(axis=0) + 1e-6  # the border pixels are always 0
    return (
        ((x_train - mean) / std).astype(np.float32),
        y_train,
        ((x_test - mean) / std).astype(np.float32),
        y_test,
    )


def build_model(lib: Any, kind: str = "cnn") -> Any:
    """The classifier of 64-pixel images with ``lib`` (``ferrograd`` or ``torch``): ``"cnn"``
    (two padded 3x3 convolutions on the 8x8 image, a 2x2 max-pool, a linear layer) or ``"mlp"``
    (64-128-10 with a ReLU)."""
    nn = lib.nn
    if kind == "cnn":
        return nn.Sequential(
            nn.Unflatten(1, (1, 8, 8)),
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(32 * 4 * 4, 10),
        )
    if kind == "mlp":
        return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    raise ValueError(f"unknown model {kind!r}: expected one of {sorted(MODELS)}")


def _progress(loader: Any, desc: str, enabled: bool) -> Any:
    """``loader`` wrapped in a tqdm bar (when tqdm is installed and ``enabled``)."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    return tqdm(loader, desc=desc, leave=True, ncols=80, file=sys.stdout)


def train(
    lib: Any,
    data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    epochs: int = 10,
    model_kind: str = "cnn",
    batch_size: int = 32,
    max_lr: float = 1e-2,
    seed: int = 0,
    progress: bool = True,
    on_first_loss: Callable[[Any, Any], None] | None = None,
) -> TrainResult:
    """Trains :func:`build_model`'s ``model_kind`` with ``lib`` (``ferrograd``, or ``torch``:
    the code is the same) and returns its per-epoch history; ``on_first_loss(loss, model)``
    sees the first batch's loss before its ``backward()`` (the demo draws its graph)."""
    torch = lib
    nn = lib.nn
    torch.manual_seed(seed)
    x_train, y_train, x_test, y_test = (torch.from_numpy(a) for a in data)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(x_train, y_train), batch_size=batch_size, shuffle=True
    )
    model = build_model(lib, model_kind)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=max_lr, epochs=epochs, steps_per_epoch=len(loader)
    )
    result = TrainResult(library=lib.__name__)
    for epoch in range(epochs):
        start = time.perf_counter()
        model.train()
        bar = _progress(loader, f"{lib.__name__} epoch {epoch + 1:2d}/{epochs}", progress)
        total, count = 0.0, 0
        for xb, yb in bar if bar is not None else loader:
            loss = loss_fn(model(xb), yb)
            if on_first_loss is not None and epoch == 0 and count == 0:
                on_first_loss(loss, model)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += loss.item() * len(yb)
            count += len(yb)
            if bar is not None:
                bar.set_postfix(loss=f"{total / count:.4f}", refresh=False)
        model.eval()
        with torch.no_grad():
            predicted = model(x_test).argmax(dim=1)
            accuracy = (predicted == y_test).float().mean().item()
        result.epoch_seconds.append(time.perf_counter() - start)
        result.losses.append(total / count)
        result.accuracies.append(accuracy)
        if bar is not None:
            bar.set_postfix(loss=f"{total / count:.4f}", test_acc=f"{accuracy:.3f}")
            bar.close()
        elif progress:  # no tqdm: one line per epoch
            print(
                f"{lib.__name__} epoch {epoch + 1:2d}/{epochs}  loss {total / count:.4f}  "
                f"test accuracy {accuracy:.3f}"
            )
    return result


def _write_curves(path: str, results: list[TrainResult]) -> str | None:
    """The loss and accuracy curves as a PNG (None, with a message, without matplotlib)."""
    try:
        import matplotlib  # type: ignore[import-untyped,import-not-found,unused-ignore]

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        print("matplotlib is not installed: no curves (pip install 'ferrograd[demo]')")
        return None
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    for r, style in zip(results, ("-o", "--s")):
        epochs = range(1, len(r.losses) + 1)
        name = "PyTorch" if r.library == "torch" else r.library
        ax_loss.plot(epochs, r.losses, style, markersize=3, label=name)
        ax_acc.plot(epochs, [100 * a for a in r.accuracies], style, markersize=3, label=name)
    ax_loss.set(title="training loss (cross-entropy)", xlabel="epoch", ylabel="loss")
    ax_loss.set_yscale("log")
    ax_acc.set(title="test accuracy", xlabel="epoch", ylabel="accuracy (%)")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("handwritten digits (scikit-learn), 8x8 pixels")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _write_graph(out: str, graph: Any) -> str:
    """The graph as SVG when Graphviz is installed, else its DOT text; returns the path."""
    try:
        return graph.render(os.path.join(out, GRAPH_STEM), format="svg", cleanup=True)
    except (ImportError, RuntimeError) as e:
        path = graph.save(os.path.join(out, GRAPH_STEM + ".dot"))
        print(f"no SVG of the graph: {e}")
        svg = os.path.splitext(path)[0] + ".svg"
        print(f"  its DOT text is in {path}; render it with: dot -Tsvg {path} -o {svg}")
        return str(path)


def _import_torch() -> Any:
    """PyTorch when it is importable, else None."""
    try:
        return importlib.import_module("torch")
    except Exception:
        return None


def run(
    out: str = ".",
    epochs: int = 10,
    model: str = "cnn",
    compare_torch: bool = True,
    progress: bool = True,
    seed: int = 0,
) -> DemoResult:
    """Trains with ferrograd (and PyTorch when ``compare_torch`` and it is importable), prints
    the test accuracy and the time per epoch, and writes the curves and the graph into ``out``."""
    os.makedirs(out, exist_ok=True)
    data = load_data(seed)
    print(
        f"digits: {len(data[0])} training and {len(data[2])} test images of 8x8 pixels, "
        "10 classes (scikit-learn's bundled copy)"
    )
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}: expected one of {sorted(MODELS)}")
    print(f"model: {MODELS[model]}")
    print("training: CrossEntropyLoss, AdamW, OneCycleLR, batches of 32")
    graphs: list[Any] = []

    def draw(loss: Any, model: Any) -> None:
        graphs.append(make_dot(loss, params=dict(model.named_parameters())))

    fg = train(ferrograd, data, epochs, model, seed=seed, progress=progress, on_first_loss=draw)
    torch_result: TrainResult | None = None
    torch_lib = _import_torch() if compare_torch else None
    if torch_lib is not None:
        print(f"the same training with PyTorch {torch_lib.__version__}:")
        torch_result = train(torch_lib, data, epochs, model, seed=seed, progress=progress)

    print()
    print(f"test accuracy:   ferrograd {100 * fg.accuracy:.2f}%", end="")
    if torch_result is not None:
        print(f"   PyTorch {100 * torch_result.accuracy:.2f}%")
    else:
        print()
    print(f"time per epoch:  ferrograd {1000 * fg.seconds_per_epoch:.0f} ms", end="")
    if torch_result is not None:
        print(f"   PyTorch {1000 * torch_result.seconds_per_epoch:.0f} ms")
    elif compare_torch:
        print("   (PyTorch not installed: nothing to compare with)")
    else:
        print()

    results = [fg] + ([torch_result] if torch_result is not None else [])
    curves = _write_curves(os.path.join(out, CURVES_FILE), results)
    graph_path = _write_graph(out, graphs[0])
    if curves is not None:
        print(f"wrote {curves} (loss and accuracy per epoch)")
    print(f"wrote {graph_path} (the autograd graph of one training step)")
    return DemoResult(fg, torch_result, curves, graph_path)


def main(argv: list[str] | None = None) -> int:
    """The command line: ``python -m ferrograd.demo [--out DIR] [--epochs N] [--model cnn|mlp]
    [--no-torch]``."""
    parser = argparse.ArgumentParser(
        prog="python -m ferrograd.demo",
        description="Train a handwritten-digit classifier with ferrograd (and PyTorch, when "
        "installed, for the timing), and draw its curves and autograd graph.",
    )
    parser.add_argument("--out", default=".", help="directory for the two pictures (default: .)")
    parser.add_argument("--epochs", type=int, default=10, help="training epochs (default: 10)")
    parser.add_argument(
        "--model", choices=sorted(MODELS), default="cnn", help="the classifier (default: cnn)"
    )
    parser.add_argument(
        "--no-torch", action="store_true", help="do not run PyTorch even when it is installed"
    )
    args = parser.parse_args(argv)
    if shutil.which("dot") is None:
        print("(Graphviz's dot program is not installed: the graph will be written as DOT text)")
    try:
        run(out=args.out, epochs=args.epochs, model=args.model, compare_torch=not args.no_torch)
    except ImportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
