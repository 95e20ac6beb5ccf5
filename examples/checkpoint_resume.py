"""Checkpointing: train, save, restore into a fresh model, resume.

Shows: ``torch.save`` of ``model.state_dict()``, ``optimizer.state_dict()`` and
``scheduler.state_dict()`` in one checkpoint file, ``torch.load(..., weights_only=True)``,
``load_state_dict`` on a freshly built (differently initialised) model, optimizer and
scheduler; the restored model gives the same outputs, and resuming training gives the same
losses as the run that never stopped (Adam's moments and the schedule travel in the file).

Run with ferrograd (default) or with PyTorch::

    python examples/checkpoint_resume.py
    EXAMPLES_LIB=torch python examples/checkpoint_resume.py
"""

import importlib
import os
import tempfile

torch = importlib.import_module(os.environ.get("EXAMPLES_LIB", "ferrograd"))
nn = torch.nn

BATCH = 25


def make_data(n=200):
    """A smooth target of four inputs, with a little noise."""
    x = torch.randn(n, 4)
    y = torch.tanh(x[:, :1] * 1.5) - 0.5 * x[:, 1:2] * x[:, 2:3] + 0.05 * torch.randn(n, 1)
    return x, y


def build():
    """A fresh model, its optimizer and its learning-rate schedule."""
    model = nn.Sequential(
        nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.9, 0.99))
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.97)
    return model, optimizer, scheduler


def train(model, optimizer, scheduler, data, first_step, steps, tag, verbose):
    """``steps`` Adam steps on fixed mini-batches (step ``i`` uses batch ``i mod 8``)."""
    x, y = data
    loss_fn = nn.MSELoss()
    losses = []
    for step in range(first_step, first_step + steps):
        start = (step * BATCH) % x.shape[0]
        xb, yb = x[start : start + BATCH], y[start : start + BATCH]
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        if verbose:
            print(f"{tag:9s} step {step + 1:3d}  loss {loss.item():.6f}")
    return losses


def main(steps=30, resume_steps=20, seed=0, verbose=True):
    """Trains ``steps`` steps, checkpoints, then continues ``resume_steps`` steps twice: in the
    original objects and in fresh ones restored from the file. Returns both loss sequences."""
    torch.manual_seed(seed)
    x, y = make_data()
    model, optimizer, scheduler = build()
    losses = train(model, optimizer, scheduler, (x, y), 0, steps, "train", verbose)

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "checkpoint.pt")
        torch.save(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "step": steps,
            },
            path,
        )
        torch.manual_seed(seed + 1)  # the fresh model starts from other weights
        model2, optimizer2, scheduler2 = build()
        checkpoint = torch.load(path, weights_only=True)
    model2.load_state_dict(checkpoint["model"])
    optimizer2.load_state_dict(checkpoint["optimizer"])
    scheduler2.load_state_dict(checkpoint["scheduler"])

    model.eval()
    model2.eval()
    with torch.no_grad():
        same_outputs = torch.equal(model(x), model2(x))
    model.train()
    model2.train()
    if verbose:
        print(f"restored model gives the same outputs: {same_outputs}")

    # The original objects go on training; the ones restored from the file do the same steps.
    start = checkpoint["step"]
    data = (x, y)
    continued = train(model, optimizer, scheduler, data, start, resume_steps, "continued", verbose)
    resumed = train(model2, optimizer2, scheduler2, data, start, resume_steps, "resumed", verbose)
    if verbose:
        print(f"resumed losses equal the uninterrupted run's: {resumed == continued}")
    return {
        "losses": losses + continued,
        "resumed_losses": resumed,
        "same_outputs": same_outputs,
        "resumed_equals_continued": resumed == continued,
        "final_lr": scheduler2.get_last_lr()[0],
    }


if __name__ == "__main__":
    main()
