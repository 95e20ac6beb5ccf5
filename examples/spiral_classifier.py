"""Three interleaved spirals classified by a small MLP.

Shows: data generated with ``torch.randn``/``torch.linspace``, ``TensorDataset`` +
``DataLoader(shuffle=True)``, an ``nn.Sequential`` with ``Dropout``,
``CrossEntropyLoss(label_smoothing=...)``, ``AdamW`` with ``OneCycleLR``,
``clip_grad_norm_``, and accuracy with ``argmax`` under ``model.eval()`` + ``torch.no_grad()``.

Run with ferrograd (default) or with PyTorch::

    python examples/spiral_classifier.py
    EXAMPLES_LIB=torch python examples/spiral_classifier.py
"""

import importlib
import math
import os

torch = importlib.import_module(os.environ.get("EXAMPLES_LIB", "ferrograd"))
nn = torch.nn
data = torch.utils.data

CLASSES = 3
POINTS_PER_CLASS = 120


def make_spirals(points_per_class=POINTS_PER_CLASS, noise=0.3):
    """Points (x, y) on ``CLASSES`` spiral arms, with Gaussian jitter on the angle."""
    xs, ys = [], []
    for k in range(CLASSES):
        radius = torch.linspace(0.05, 1.0, points_per_class)
        angle = radius * 3.5 + k * 2 * math.pi / CLASSES
        angle = angle + noise * torch.randn(points_per_class)
        xs.append(torch.stack([radius * torch.sin(angle), radius * torch.cos(angle)], dim=1))
        ys.append(torch.full((points_per_class,), k, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


def accuracy(model, x, y):
    """Fraction of points whose arg-max logit is their class (dropout off, no graph)."""
    model.eval()
    with torch.no_grad():
        predicted = model(x).argmax(dim=1)
    model.train()
    return (predicted == y).float().mean().item()


def main(steps=150, seed=0, verbose=True):
    """Trains for ``steps`` optimizer steps; returns the loss of every step and the accuracies."""
    torch.manual_seed(seed)
    x, y = make_spirals()
    loader = data.DataLoader(data.TensorDataset(x, y), batch_size=32, shuffle=True)
    model = nn.Sequential(
        nn.Linear(2, 64),
        nn.ReLU(),
        nn.Dropout(0.1),
        nn.Linear(64, 64),
        nn.ReLU(),
        nn.Linear(64, CLASSES),
    )
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.03, total_steps=steps)

    losses, accuracies, step, epoch = [], [], 0, 0
    while step < steps:
        epoch += 1
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            step += 1
            if verbose:
                print(
                    f"step {step:4d}  loss {loss.item():.6f}  lr {scheduler.get_last_lr()[0]:.5f}"
                )
            if step == steps:
                break
        accuracies.append(accuracy(model, x, y))
        if verbose:
            print(f"epoch {epoch:3d}  train accuracy {accuracies[-1]:.4f}")
    return {"losses": losses, "epoch_accuracies": accuracies, "final_accuracy": accuracies[-1]}


if __name__ == "__main__":
    main()
