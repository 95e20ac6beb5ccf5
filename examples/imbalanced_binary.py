"""Binary classification of an imbalanced data set (one positive in eight).

Shows: ``random_split`` into training and validation sets with a seeded ``torch.Generator``,
``nn.BCEWithLogitsLoss(pos_weight=...)`` weighting the rare class by the negative/positive
ratio, ``optim.RMSprop``, and precision/recall computed from ``torch.sigmoid`` of the logits.

Run with ferrograd (default) or with PyTorch::

    python examples/imbalanced_binary.py
    EXAMPLES_LIB=torch python examples/imbalanced_binary.py
"""

import importlib
import os

torch = importlib.import_module(os.environ.get("EXAMPLES_LIB", "ferrograd"))
nn = torch.nn
data = torch.utils.data


def make_data(negatives=560, positives=80):
    """Two overlapping Gaussian clouds in 5 dimensions; label 1 for the small one."""
    x_neg = torch.randn(negatives, 5)
    x_pos = torch.randn(positives, 5) * 0.8 + torch.tensor([1.2, -1.0, 0.5, 0.0, 0.8])
    x = torch.cat([x_neg, x_pos])
    y = torch.cat([torch.zeros(negatives), torch.ones(positives)])
    return x, y


def evaluate(model, loader):
    """Accuracy, precision and recall of ``sigmoid(logit) > 0.5`` over a loader's batches."""
    model.eval()
    correct = true_positives = predicted_positives = positives = count = 0
    with torch.no_grad():
        for xb, yb in loader:
            predicted = (torch.sigmoid(model(xb).squeeze(1)) > 0.5).float()
            correct += (predicted == yb).sum().item()
            true_positives += (predicted * yb).sum().item()
            predicted_positives += predicted.sum().item()
            positives += yb.sum().item()
            count += len(yb)
    model.train()
    return {
        "accuracy": correct / count,
        "precision": true_positives / max(predicted_positives, 1),
        "recall": true_positives / positives,
    }


def main(epochs=12, seed=0, verbose=True):
    """Trains for ``epochs`` epochs; returns every step's loss and the validation metrics."""
    torch.manual_seed(seed)
    x, y = make_data()
    train_set, val_set = data.random_split(
        data.TensorDataset(x, y), [0.75, 0.25], generator=torch.Generator().manual_seed(seed)
    )
    train_labels = y[torch.tensor(train_set.indices)]
    pos_weight = (train_labels == 0).sum() / (train_labels == 1).sum()
    if verbose:
        print(
            f"{len(train_set)} training / {len(val_set)} validation points, "
            f"pos_weight {pos_weight.item():.4f}"
        )

    model = nn.Sequential(nn.Linear(5, 16), nn.GELU(), nn.Linear(16, 1))
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=pos_weight.reshape(1))
    optimizer = torch.optim.RMSprop(model.parameters(), lr=5e-3, alpha=0.9)
    loader = data.DataLoader(train_set, batch_size=32, shuffle=True)
    val_loader = data.DataLoader(val_set, batch_size=64)

    losses, history = [], []
    for epoch in range(1, epochs + 1):
        first = len(losses)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb.unsqueeze(1))
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        history.append(evaluate(model, val_loader))
        if verbose:
            m, mean_loss = history[-1], sum(losses[first:]) / (len(losses) - first)
            print(
                f"epoch {epoch:2d}  loss {mean_loss:.6f}  val accuracy {m['accuracy']:.4f}  "
                f"precision {m['precision']:.4f}  recall {m['recall']:.4f}"
            )
    return {"losses": losses, "val_metrics": history, "train_indices": list(train_set.indices)}


if __name__ == "__main__":
    main()
