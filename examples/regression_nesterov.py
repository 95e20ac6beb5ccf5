"""Regression with a custom module that standardises its inputs with registered buffers.

Shows: an ``nn.Module`` subclass with ``__init__``/``forward``, ``register_buffer`` (saved in
the ``state_dict``, not trained), ``nn.HuberLoss`` for training and ``nn.MSELoss`` for
validation, ``optim.SGD(momentum=0.9, nesterov=True, weight_decay=...)`` and
``ReduceLROnPlateau`` driven by the validation loss.

Run with ferrograd (default) or with PyTorch::

    python examples/regression_nesterov.py
    EXAMPLES_LIB=torch python examples/regression_nesterov.py
"""

import importlib
import os

torch = importlib.import_module(os.environ.get("EXAMPLES_LIB", "ferrograd"))
nn = torch.nn
data = torch.utils.data


class StandardizedMLP(nn.Module):
    """An MLP that first standardises its inputs with the training set's mean and spread,
    kept as buffers so that they move with the model and are saved with it."""

    def __init__(self, mean, std, hidden=48):
        super().__init__()
        self.register_buffer("mean", mean.clone())
        self.register_buffer("std", std.clone())
        self.hidden = nn.Linear(mean.shape[0], hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        z = (x - self.mean) / self.std
        return self.out(torch.relu(self.hidden(z))).squeeze(-1)


def make_data(n=400):
    """Inputs on very different scales and a non-linear target of them, with noise."""
    x = torch.randn(n, 3) * torch.tensor([1.0, 10.0, 0.1]) + torch.tensor([0.0, 50.0, -1.0])
    y = torch.sin(2 * x[:, 0]) + 0.05 * (x[:, 1] - 50) + 3 * (x[:, 2] + 1) ** 2
    return x, y + 0.1 * torch.randn(n)


def main(epochs=25, seed=0, verbose=True):
    """Trains for ``epochs`` epochs of mini-batch SGD; returns every step's loss, the
    validation losses and the learning rate of each epoch."""
    torch.manual_seed(seed)
    x, y = make_data()
    x_train, y_train, x_val, y_val = x[:320], y[:320].clone(), x[320:], y[320:]
    y_train[::40] += 5.0  # gross outliers in the training labels, which Huber's loss tolerates
    model = StandardizedMLP(x_train.mean(dim=0), x_train.std(dim=0))
    loader = data.DataLoader(data.TensorDataset(x_train, y_train), batch_size=40, shuffle=True)
    loss_fn = nn.HuberLoss(delta=1.0)
    optimizer = torch.optim.SGD(
        model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4
    )
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=2)

    losses, val_losses, lrs = [], [], []
    for epoch in range(1, epochs + 1):
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            val_loss = nn.functional.mse_loss(model(x_val), y_val).item()
        scheduler.step(val_loss)
        val_losses.append(val_loss)
        lrs.append(optimizer.param_groups[0]["lr"])
        if verbose:
            print(
                f"epoch {epoch:3d}  train loss {sum(losses[-8:]) / 8:.6f}  "
                f"val mse {val_loss:.6f}  lr {lrs[-1]:.5f}"
            )
    if verbose:
        print("buffers in the state dict:", [k for k in model.state_dict() if k in ("mean", "std")])
    return {
        "losses": losses,
        "val_losses": val_losses,
        "lrs": lrs,
        "state_dict_keys": list(model.state_dict()),
    }


if __name__ == "__main__":
    main()
