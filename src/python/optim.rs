//! Optimizer-step bindings for the adaptive-rate optimizers: one call per parameter group
//! (`_core._optim_step("rmsprop", params, grads, states, steps, hyper)`), the GIL released
//! while the core updates every parameter.

use super::run;
use super::tensor::PyTensor;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::ops::adaptive::{
    Adadelta, Adafactor, AdafactorState, Adagrad, Adamax, Asgd, Nadam, Radam, RmsProp,
    RmsPropState, Rprop,
};
use pyo3::prelude::*;
use std::collections::HashMap;

/// A hyper-parameter by name (booleans are passed as 0/1).
fn get(hyper: &HashMap<String, f64>, name: &str) -> Result<f64> {
    hyper
        .get(name)
        .copied()
        .ok_or_else(|| Error::value(format!("optimizer step is missing the '{name}' setting")))
}

/// The update of one parameter by the optimizer `name`, given its state tensors in the order
/// its Python class keeps them and its step number (already incremented).
fn update(
    name: &str,
    hyper: &HashMap<String, f64>,
    param: &Tensor,
    grad: &Tensor,
    state: &[Option<Tensor>],
    step: u64,
) -> Result<()> {
    let h = |k: &str| get(hyper, k);
    let at = |i: usize| state.get(i).and_then(|t| t.as_ref());
    let first = at(0).ok_or_else(|| Error::value("optimizer step without its state"))?;
    match name {
        "rmsprop" => RmsProp {
            lr: h("lr")?,
            alpha: h("alpha")?,
            eps: h("eps")?,
            weight_decay: h("weight_decay")?,
            momentum: h("momentum")?,
            centered: h("centered")? != 0.0,
            maximize: h("maximize")? != 0.0,
        }
        .step(
            param,
            grad,
            RmsPropState {
                square_avg: first,
                momentum_buffer: at(1),
                grad_avg: at(2),
            },
        ),
        "adagrad" => Adagrad {
            lr: h("lr")?,
            lr_decay: h("lr_decay")?,
            weight_decay: h("weight_decay")?,
            eps: h("eps")?,
            maximize: h("maximize")? != 0.0,
        }
        .step(param, grad, first, step),
        "adadelta" => Adadelta {
            lr: h("lr")?,
            rho: h("rho")?,
            eps: h("eps")?,
            weight_decay: h("weight_decay")?,
            maximize: h("maximize")? != 0.0,
        }
        .step(param, grad, first, at(1).unwrap_or(first)),
        "adamax" => Adamax {
            lr: h("lr")?,
            beta1: h("beta1")?,
            beta2: h("beta2")?,
            eps: h("eps")?,
            weight_decay: h("weight_decay")?,
            maximize: h("maximize")? != 0.0,
        }
        .step(param, grad, first, at(1).unwrap_or(first), step),
        "nadam" => {
            let mu_product = at(2).ok_or_else(|| Error::value("NAdam's step needs mu_product"))?;
            Nadam {
                lr: h("lr")?,
                beta1: h("beta1")?,
                beta2: h("beta2")?,
                eps: h("eps")?,
                weight_decay: h("weight_decay")?,
                momentum_decay: h("momentum_decay")?,
                decoupled_weight_decay: h("decoupled_weight_decay")? != 0.0,
                maximize: h("maximize")? != 0.0,
            }
            .step(
                param,
                grad,
                [first, at(1).unwrap_or(first), mu_product],
                step,
            )
        }
        "radam" => Radam {
            lr: h("lr")?,
            beta1: h("beta1")?,
            beta2: h("beta2")?,
            eps: h("eps")?,
            weight_decay: h("weight_decay")?,
            decoupled_weight_decay: h("decoupled_weight_decay")? != 0.0,
            maximize: h("maximize")? != 0.0,
        }
        .step(param, grad, first, at(1).unwrap_or(first), step),
        "rprop" => Rprop {
            etaminus: h("etaminus")?,
            etaplus: h("etaplus")?,
            step_size_min: h("step_size_min")?,
            step_size_max: h("step_size_max")?,
            maximize: h("maximize")? != 0.0,
        }
        .step(param, grad, first, at(1).unwrap_or(first)),
        "asgd" => {
            let (eta, mu) = (at(1), at(2));
            let (Some(eta), Some(mu)) = (eta, mu) else {
                return Err(Error::value("ASGD's step needs eta and mu"));
            };
            Asgd {
                lr: h("lr")?,
                lambd: h("lambd")?,
                alpha: h("alpha")?,
                t0: h("t0")?,
                weight_decay: h("weight_decay")?,
                maximize: h("maximize")? != 0.0,
            }
            .step(param, grad, [first, eta, mu], step)
        }
        "adafactor" => Adafactor {
            lr: h("lr")?,
            beta2_decay: h("beta2_decay")?,
            eps1: hyper.get("eps1").copied(),
            eps2: h("eps2")?,
            d: h("d")?,
            weight_decay: h("weight_decay")?,
            maximize: h("maximize")? != 0.0,
        }
        .step(
            param,
            grad,
            match at(1) {
                Some(col_var) => AdafactorState::Factored(first, col_var),
                None => AdafactorState::Full(first),
            },
            step,
        ),
        other => Err(Error::value(format!("no optimizer step named '{other}'"))),
    }
}

/// One step of the optimizer `name` over a parameter group: each parameter with its gradient,
/// its state tensors (updated in place) and its step number.
#[pyfunction]
fn _optim_step(
    py: Python<'_>,
    name: &str,
    params: Vec<PyRef<'_, PyTensor>>,
    grads: Vec<PyRef<'_, PyTensor>>,
    states: Vec<Vec<Option<PyRef<'_, PyTensor>>>>,
    steps: Vec<u64>,
    hyper: HashMap<String, f64>,
) -> PyResult<()> {
    let inner = |ts: &[PyRef<'_, PyTensor>]| ts.iter().map(|t| t.inner.clone()).collect::<Vec<_>>();
    let (params, grads) = (inner(&params), inner(&grads));
    let states: Vec<Vec<Option<Tensor>>> = states
        .iter()
        .map(|s| {
            s.iter()
                .map(|t| t.as_ref().map(|t| t.inner.clone()))
                .collect()
        })
        .collect();
    if grads.len() != params.len() || states.len() != params.len() || steps.len() != params.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "_optim_step: one gradient, state and step per parameter",
        ));
    }
    py.detach(|| {
        run(|| {
            for (((p, g), s), &step) in params.iter().zip(&grads).zip(&states).zip(&steps) {
                update(name, &hyper, p, g, s, step)?;
            }
            Ok(())
        })
    })
}

/// Adds the optimizer-step functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_optim_step, m)?)?;
    Ok(())
}
