"""The steps of ``differentiable=True`` optimizers: PyTorch's single-tensor algorithms written
with tensor operations, so that autograd records the update.

Note [Two forms of an optimizer step]
An optimizer's ordinary step is one call into the core per parameter group
(``_core._optim_step``, running one of the rules of the crate's ``optim`` module): a fused
loop that writes the parameter and its state in place, outside autograd.
``differentiable=True`` asks for the opposite: the update is part of the graph, so that a loss
computed after the step can be differentiated with respect to the parameter before it, the
gradient, the state or a tensor hyper-parameter (meta-learning). That
form is written here, with the operations PyTorch's single-tensor algorithms use in their
differentiable branches (``exp_avg.clone()`` before it is read by an in-place update, ``lerp``
for a tensor ``beta2``, ``torch.maximum`` for AMSGrad's running maximum). Both forms compute the
same update: ``tests/test_optim_differentiable.py`` checks each optimizer's two forms against
each other, and PyTorch's ``TestDifferentiableOptimizer`` checks this form's gradients.

Each function takes the group (its hyper-parameters), the parameters with a gradient, their
gradients and their state dicts (already initialized, the step count already incremented).
"""

from .. import _core, cat, full_like, maximum, ones_like, tensor, where, zeros_like


def _neg_if(maximize, grad):
    return -grad if maximize else grad


def _l2(grad, param, weight_decay):
    """``grad + weight_decay * param`` (a tensor ``weight_decay`` stays in the graph; the
    parameter is copied for it, as the update then writes the parameter in place)."""
    if isinstance(weight_decay, _core.Tensor):
        return grad + param.clone() * weight_decay
    return grad.add(param, alpha=weight_decay) if weight_decay != 0 else grad


def _decay(group, param, grad):
    """The gradient after weight decay: an L2 term, or (``decoupled_weight_decay``, AdamW's)
    the parameter shrunk in place by ``1 - lr · weight_decay``."""
    weight_decay = group["weight_decay"]
    if not isinstance(weight_decay, _core.Tensor) and weight_decay == 0:
        return grad
    if group.get("decoupled_weight_decay"):
        param.mul_(1 - group["lr"] * weight_decay)
        return grad
    return _l2(grad, param, weight_decay)


def _add_scaled(param, update, scale):
    """``param += scale * update`` in place, ``scale`` a number or a tensor in the graph."""
    if isinstance(scale, _core.Tensor):
        param.addcmul_(update, scale)
    else:
        param.add_(update, alpha=scale)


def sgd(group, params, grads, states):
    momentum, dampening = group["momentum"], group["dampening"]
    for param, grad, state in zip(params, grads, states):
        grad = _l2(_neg_if(group["maximize"], grad), param, group["weight_decay"])
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = grad.clone().detach()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        _add_scaled(param, grad, -group["lr"])


def adam(group, params, grads, states):
    lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
    for param, grad, state in zip(params, grads, states):
        grad = _decay(group, param, _neg_if(group["maximize"], grad))
        exp_avg, exp_avg_sq, step = state["exp_avg"], state["exp_avg_sq"], state["step"]
        exp_avg.lerp_(grad, 1 - beta1)
        if isinstance(beta2, _core.Tensor):
            exp_avg_sq.lerp_(grad.square(), 1 - beta2)
        else:
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        # a tensor beta keeps its own copy of the step, which the next step increments
        bias_correction1 = 1 - beta1 ** (step.clone() if isinstance(beta1, _core.Tensor) else step)
        bias_correction2 = 1 - beta2 ** (step.clone() if isinstance(beta2, _core.Tensor) else step)
        step_size_neg = -(lr / bias_correction1)
        root_bias_correction2 = bias_correction2.sqrt()
        second = exp_avg_sq
        if group["amsgrad"]:
            running_max = state["max_exp_avg_sq"]
            running_max.copy_(maximum(running_max.clone(), exp_avg_sq))
            second = running_max
        denom = (second.sqrt() / (root_bias_correction2 * step_size_neg)).add_(eps / step_size_neg)
        param.addcdiv_(exp_avg.clone(), denom)


def adagrad(group, params, grads, states):
    for param, grad, state in zip(params, grads, states):
        step = float(state["step"])
        grad = _l2(_neg_if(group["maximize"], grad), param, group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt() + group["eps"]
        param.addcdiv_(grad, std, value=-clr)


def adadelta(group, params, grads, states):
    rho, eps = group["rho"], group["eps"]
    for param, grad, state in zip(params, grads, states):
        grad = _l2(_neg_if(group["maximize"], grad), param, group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-group["lr"])


def adamax(group, params, grads, states):
    (beta1, beta2), eps = group["betas"], group["eps"]
    for param, grad, state in zip(params, grads, states):
        grad = _l2(_neg_if(group["maximize"], grad), param, group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        norms = cat([exp_inf.mul_(beta2).unsqueeze(0), (grad.abs() + eps).unsqueeze(0)], 0)
        exp_inf.copy_(norms.amax(0))
        clr = group["lr"] / (1 - beta1 ** float(state["step"]))
        param.addcdiv_(exp_avg, exp_inf, value=-clr)


def nadam(group, params, grads, states):
    lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
    momentum_decay = group["momentum_decay"]
    for param, grad, state in zip(params, grads, states):
        step = float(state["step"])
        grad = _decay(group, param, _neg_if(group["maximize"], grad))
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"]
        mu_product.mul_(mu)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(1 - beta2**step).sqrt().add(eps)
        # the two scales as tensors (``mu_product`` is in the graph), so not ``value=``
        param.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)), denom)
        param.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product * mu_next)), denom)


def radam(group, params, grads, states):
    lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
    for param, grad, state in zip(params, grads, states):
        step = float(state["step"])
        grad = _decay(group, param, _neg_if(group["maximize"], grad))
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction2 = 1 - beta2**step
        corrected = exp_avg / (1 - beta1**step)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            adaptive = (bias_correction2**0.5) / exp_avg_sq.sqrt().add(eps)
            param.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            param.add_(corrected * lr, alpha=-1.0)


def rmsprop(group, params, grads, states):
    alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
    for param, grad, state in zip(params, grads, states):
        grad = _l2(_neg_if(group["maximize"], grad), param, group["weight_decay"])
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps)
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-group["lr"])
        else:
            param.addcdiv_(grad, avg, value=-group["lr"])


def rprop(group, params, grads, states):
    etaminus, etaplus = group["etas"]
    step_size_min, step_size_max = group["step_sizes"]
    for param, grad, state in zip(params, grads, states):
        grad = _neg_if(group["maximize"], grad)
        prev, step_size = state["prev"], state["step_size"]
        sign = grad.mul(prev.clone()).sign()
        factor = where(
            sign.gt(0),
            full_like(sign, etaplus),
            where(sign.lt(0), full_like(sign, etaminus), ones_like(sign)),
        )
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        grad = where(factor.eq(etaminus), zeros_like(grad), grad)
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)


def asgd(group, params, grads, states):
    lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
    for param, grad, state in zip(params, grads, states):
        step = float(state["step"])
        grad = _l2(_neg_if(group["maximize"], grad), param, group["weight_decay"])
        ax, eta, mu = state["ax"], state["eta"], state["mu"]
        eta_value = float(eta)
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if float(mu) != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        eta.copy_(tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(tensor(1 / max(1, step - t0)))


STEPS = {
    "sgd": sgd,
    "adam": adam,
    "adagrad": adagrad,
    "adadelta": adadelta,
    "adamax": adamax,
    "nadam": nadam,
    "radam": radam,
    "rmsprop": rmsprop,
    "rprop": rprop,
    "asgd": asgd,
}
"""Each optimizer's differentiable step, by the name of its core kernel."""
