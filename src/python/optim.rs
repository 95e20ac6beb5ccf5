//! The one optimizer binding: `_core._optim_step(name, params, grads, states, hyper)` runs the
//! rule `name` of [`crate::optim::rule`] over a parameter group, its hyper-parameters read into
//! the rule's typed struct, each parameter's `state[p]` dict read by PyTorch's names and
//! updated in place, the GIL released while the core updates every parameter.

use super::errors::run;
use super::tensor::{to_object, PyTensor};
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use crate::optim::rule::{
    Adadelta, Adafactor, Adagrad, Adam, AdamW, Adamax, Asgd, Nadam, Radam, RmsProp, Rprop, Sgd,
};
use crate::optim::{State, Update};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;

/// A parameter group's settings as Python's optimizers pass them (numbers; booleans as 0/1;
/// `betas` as `beta1` and `beta2`).
struct Settings(HashMap<String, f64>);

impl Settings {
    /// The setting `name`.
    fn number(&self, name: &str) -> Result<f64> {
        self.0
            .get(name)
            .copied()
            .ok_or_else(|| Error::value(format!("optimizer step is missing the '{name}' setting")))
    }

    /// The boolean setting `name`.
    fn flag(&self, name: &str) -> Result<bool> {
        Ok(self.number(name)? != 0.0)
    }
}

/// A rule built from a group's settings.
trait FromSettings: Update + Sized {
    fn from_settings(s: &Settings) -> Result<Self>;
}

/// `FromSettings` for a rule whose every field is a setting of the same name.
macro_rules! from_settings {
    ($rule:ident { $($field:ident: $kind:ident),* $(,)? }) => {
        impl FromSettings for $rule {
            fn from_settings(s: &Settings) -> Result<Self> {
                Ok($rule { $($field: s.$kind(stringify!($field))?),* })
            }
        }
    };
}

from_settings!(Sgd {
    lr: number,
    momentum: number,
    dampening: number,
    weight_decay: number,
    nesterov: flag,
    maximize: flag
});
from_settings!(RmsProp {
    lr: number,
    alpha: number,
    eps: number,
    weight_decay: number,
    momentum: number,
    centered: flag,
    maximize: flag
});
from_settings!(Adagrad {
    lr: number,
    lr_decay: number,
    initial_accumulator_value: number,
    weight_decay: number,
    eps: number,
    maximize: flag
});
from_settings!(Adadelta {
    lr: number,
    rho: number,
    eps: number,
    weight_decay: number,
    maximize: flag
});
from_settings!(Adamax {
    lr: number,
    beta1: number,
    beta2: number,
    eps: number,
    weight_decay: number,
    maximize: flag
});
from_settings!(Nadam {
    lr: number,
    beta1: number,
    beta2: number,
    eps: number,
    weight_decay: number,
    momentum_decay: number,
    decoupled_weight_decay: flag,
    maximize: flag
});
from_settings!(Radam {
    lr: number,
    beta1: number,
    beta2: number,
    eps: number,
    weight_decay: number,
    decoupled_weight_decay: flag,
    maximize: flag
});
from_settings!(Rprop {
    lr: number,
    etaminus: number,
    etaplus: number,
    step_size_min: number,
    step_size_max: number,
    maximize: flag
});
from_settings!(Asgd {
    lr: number,
    lambd: number,
    alpha: number,
    t0: number,
    weight_decay: number,
    maximize: flag
});

impl FromSettings for Adam {
    fn from_settings(s: &Settings) -> Result<Self> {
        Ok(Adam {
            lr: s.number("lr")?,
            beta1: s.number("beta1")?,
            beta2: s.number("beta2")?,
            eps: s.number("eps")?,
            weight_decay: s.number("weight_decay")?,
            amsgrad: s.flag("amsgrad")?,
            maximize: s.flag("maximize")?,
            decoupled: s.flag("decoupled_weight_decay")?,
        })
    }
}

impl FromSettings for AdamW {
    fn from_settings(s: &Settings) -> Result<Self> {
        Ok(AdamW(Adam {
            decoupled: true,
            ..Adam::from_settings(s)?
        }))
    }
}

impl FromSettings for Adafactor {
    fn from_settings(s: &Settings) -> Result<Self> {
        Ok(Adafactor {
            lr: s.number("lr")?,
            beta2_decay: s.number("beta2_decay")?,
            eps1: s.0.get("eps1").copied(),
            eps2: s.number("eps2")?,
            d: s.number("d")?,
            weight_decay: s.number("weight_decay")?,
            maximize: s.flag("maximize")?,
        })
    }
}

/// Where a parameter's step count lives in its Python state.
enum StepKey {
    /// A tensor (PyTorch's `state["step"]`), advanced in place.
    Tensor(Tensor),
    /// A plain number (a state loaded from elsewhere): replaced by a tensor.
    Number,
    /// No step count (SGD keeps none).
    Absent,
}

/// One parameter's part of a step.
struct Item {
    param: Tensor,
    grad: Tensor,
    state: State,
    step: StepKey,
    /// How many state tensors Python gave (those after them are new).
    given: usize,
}

/// `state[p]` read into a [`State`]: its tensors by name, and its step count.
fn read_state(dict: &Bound<'_, PyDict>) -> PyResult<(State, StepKey)> {
    let mut state = State::default();
    let mut step = StepKey::Absent;
    for (key, value) in dict.iter() {
        let Ok(name) = key.extract::<String>() else {
            continue;
        };
        let tensor = value
            .cast::<PyTensor>()
            .ok()
            .map(|t| t.borrow().inner.clone());
        match (name.as_str(), tensor) {
            ("step", Some(t)) => {
                state.step = run(|| t.item())?.to_f64() as u64;
                step = StepKey::Tensor(t);
            }
            ("step", None) => {
                state.step = value.extract::<f64>()? as u64;
                step = StepKey::Number;
            }
            (_, Some(t)) => state.insert(name, t),
            (_, None) => {}
        }
    }
    Ok((state, step))
}

/// Runs the rule `R`, built from `settings`, over every item: each step count advanced, then
/// the parameter and its state updated.
fn run_rule<R: FromSettings>(settings: &Settings, items: &mut [Item]) -> Result<()> {
    let rule = R::from_settings(settings)?;
    for item in items {
        item.state.step += 1;
        rule.update(&item.param, &item.grad, &mut item.state)?;
        if let StepKey::Tensor(t) = &item.step {
            t.fill_(Scalar::Float(item.state.step as f64))?;
        }
    }
    Ok(())
}

/// Runs the rule named `name` (Python's `_kernel` names) over `items`.
fn run_named(name: &str, settings: &Settings, items: &mut [Item]) -> Result<()> {
    match name {
        "sgd" => run_rule::<Sgd>(settings, items),
        "adam" => run_rule::<Adam>(settings, items),
        "adamw" => run_rule::<AdamW>(settings, items),
        "rmsprop" => run_rule::<RmsProp>(settings, items),
        "adagrad" => run_rule::<Adagrad>(settings, items),
        "adadelta" => run_rule::<Adadelta>(settings, items),
        "adamax" => run_rule::<Adamax>(settings, items),
        "nadam" => run_rule::<Nadam>(settings, items),
        "radam" => run_rule::<Radam>(settings, items),
        "rprop" => run_rule::<Rprop>(settings, items),
        "asgd" => run_rule::<Asgd>(settings, items),
        "adafactor" => run_rule::<Adafactor>(settings, items),
        other => Err(Error::value(format!("no optimizer rule named '{other}'"))),
    }
}

/// One step of the optimizer rule `name` over a parameter group: each parameter with its
/// gradient and its `state[p]` dict (tensors updated in place, `state["step"]` advanced in
/// place). Returns, per parameter, a dict of the entries to add to its state (the tensors the
/// rule made, such as SGD's momentum buffer on its first step), or None.
#[pyfunction]
#[pyo3(signature = (name: "str", params: "list[Tensor]", grads: "list[Tensor]", states: "list[dict[str, Any]]", hyper: "dict[str, float]") -> "list[dict[str, Tensor] | None]")]
pub(crate) fn _optim_step(
    py: Python<'_>,
    name: &str,
    params: Vec<PyRef<'_, PyTensor>>,
    grads: Vec<PyRef<'_, PyTensor>>,
    states: Vec<Bound<'_, PyDict>>,
    hyper: HashMap<String, f64>,
) -> PyResult<Vec<Option<Py<PyDict>>>> {
    if grads.len() != params.len() || states.len() != params.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "_optim_step: one gradient and one state per parameter, got {} parameters, {} \
             gradients and {} states",
            params.len(),
            grads.len(),
            states.len()
        )));
    }
    let mut items = Vec::with_capacity(params.len());
    for ((p, g), dict) in params.iter().zip(&grads).zip(&states) {
        let (state, step) = read_state(dict)?;
        items.push(Item {
            param: p.inner.clone(),
            grad: g.inner.clone(),
            given: state.iter().count(),
            state,
            step,
        });
    }
    let settings = Settings(hyper);
    py.detach(|| run(|| run_named(name, &settings, &mut items)))?;
    items
        .into_iter()
        .map(|item| {
            let added: Vec<(&str, &Tensor)> = item.state.iter().skip(item.given).collect();
            if added.is_empty() && !matches!(item.step, StepKey::Number) {
                return Ok(None);
            }
            let dict = PyDict::new(py);
            for (name, t) in added {
                dict.set_item(name, to_object(py, t.clone())?)?;
            }
            if let StepKey::Number = item.step {
                let step = Tensor::scalar_of(item.state.step as f64, DType::Float32);
                dict.set_item("step", to_object(py, step)?)?;
            }
            Ok(Some(dict.unbind()))
        })
        .collect()
}
