"""Fitting a damped oscillator with a hand-written autograd Function, in float64.

Shows: a custom ``torch.autograd.Function`` (``forward``/``backward`` with
``ctx.save_for_backward``) whose backward is made of differentiable operations, so it also
supports second derivatives; ``torch.autograd.gradcheck`` on it; an ``Adam`` fit of its four
parameters to noisy measurements; and, at the optimum, ``torch.autograd.functional.jacobian``
of the model (the Gauss-Newton matrix) and ``torch.autograd.functional.hessian`` of the loss.

Run with ferrograd (default) or with PyTorch::

    python examples/oscillator_fit.py
    EXAMPLES_LIB=torch python examples/oscillator_fit.py
"""

import importlib
import os

torch = importlib.import_module(os.environ.get("EXAMPLES_LIB", "ferrograd"))

TRUE_PARAMS = [1.5, 0.3, 2.0, 0.4]  # amplitude, damping rate, angular frequency, phase


class DampedOscillation(torch.autograd.Function):
    """``x(t) = a * exp(-gamma * t) * cos(omega * t + phi)`` for ``params = (a, gamma, omega,
    phi)``, with the gradient with respect to the parameters written out by hand."""

    @staticmethod
    def forward(ctx, t, params):
        a, gamma, omega, phi = params.unbind(0)
        envelope = torch.exp(-gamma * t)
        phase = omega * t + phi
        ctx.save_for_backward(t, params)
        return a * envelope * torch.cos(phase)

    @staticmethod
    def backward(ctx, grad_x):
        t, params = ctx.saved_tensors
        a, gamma, omega, phi = params.unbind(0)
        envelope = torch.exp(-gamma * t)
        cos, sin = torch.cos(omega * t + phi), torch.sin(omega * t + phi)
        d_a = envelope * cos
        d_gamma = -t * a * envelope * cos
        d_omega = -t * a * envelope * sin
        d_phi = -a * envelope * sin
        jacobian = torch.stack([d_a, d_gamma, d_omega, d_phi], dim=1)  # (samples, 4)
        return None, grad_x @ jacobian


def main(steps=300, seed=0, verbose=True):
    """Fits the oscillator in ``steps`` Adam steps; returns the losses, the fitted parameters,
    the gradcheck verdict, the Gauss-Newton matrix and the Hessian of the loss at the fit."""
    torch.manual_seed(seed)
    t = torch.linspace(0.0, 8.0, 160, dtype=torch.float64)
    truth = torch.tensor(TRUE_PARAMS, dtype=torch.float64)
    measured = DampedOscillation.apply(t, truth) + 0.03 * torch.randn(160, dtype=torch.float64)

    def loss_of(params):
        return ((DampedOscillation.apply(t, params) - measured) ** 2).mean()

    probe = torch.tensor([1.0, 0.2, 1.9, 0.1], dtype=torch.float64, requires_grad=True)
    gradient_ok = torch.autograd.gradcheck(DampedOscillation.apply, (t[:12], probe))
    if verbose:
        print(f"gradcheck of the hand-written backward: {gradient_ok}")

    params = torch.tensor([1.0, 0.1, 1.8, 0.0], dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.Adam([params], lr=0.02)
    losses = []
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        loss = loss_of(params)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if verbose and (step % 20 == 0 or step == 1):
            shown = "  ".join(f"{v:.6f}" for v in params.detach().tolist())
            print(f"step {step:4d}  loss {loss.item():.8e}  params {shown}")

    fitted = params.detach()
    jacobian = torch.autograd.functional.jacobian(lambda p: DampedOscillation.apply(t, p), fitted)
    gauss_newton = 2.0 / t.shape[0] * (jacobian.t() @ jacobian)
    hessian = torch.autograd.functional.hessian(loss_of, fitted)
    if verbose:
        print("fitted parameters:", [round(v, 4) for v in fitted.tolist()], "truth:", TRUE_PARAMS)
        print("Hessian of the loss at the fit:\n", hessian)
        print("Gauss-Newton approximation 2/N J^T J:\n", gauss_newton)
    return {
        "losses": losses,
        "gradcheck": gradient_ok,
        "params": fitted.tolist(),
        "gauss_newton": gauss_newton.tolist(),
        "hessian": hessian.tolist(),
    }


if __name__ == "__main__":
    main()
