//! Anomaly detection's Python side: the traceback captured when a node is made, and the
//! warning (PyTorch's text) when a node fails in backward.

use crate::autograd::anomaly::{self, Reporter};
use pyo3::prelude::*;

struct PythonReporter;

impl Reporter for PythonReporter {
    fn capture(&self) -> Option<String> {
        Python::attach(|py| {
            let stack = py
                .import("traceback")
                .ok()?
                .call_method0("format_stack")
                .ok()?;
            let lines: Vec<String> = stack.extract().ok()?;
            Some(lines.concat())
        })
    }

    fn report(&self, node: &str, trace: Option<&str>, induced: bool) {
        let message = match trace {
            Some(trace) if induced => format!(
                "\n\nPrevious calculation was induced by {node}. Traceback of forward call that \
                 induced the previous calculation:\n{trace}"
            ),
            Some(trace) => format!(
                "Error detected in {node}. Traceback of forward call that caused the error:\n{trace}"
            ),
            None => format!(
                "Error detected in {node}. No forward pass information available. Enable detect \
                 anomaly during forward pass for more information."
            ),
        };
        Python::attach(|py| {
            let warned = py
                .import("warnings")
                .and_then(|w| w.call_method1("warn", (message.as_str(),)));
            // a warning filter that raises: print it instead (the backward error follows)
            if warned.is_err() {
                if let Ok(sys) = py.import("sys") {
                    if let Ok(stderr) = sys.getattr("stderr") {
                        let _ = stderr.call_method1("write", (format!("{message}\n"),));
                    }
                }
            }
        });
    }
}

/// Turns anomaly detection on or off (`check_nan`: also check backward results for NaN).
#[pyfunction]
#[pyo3(signature = (enabled: "bool", check_nan: "bool") -> "None")]
pub(crate) fn _set_anomaly_enabled(enabled: bool, check_nan: bool) {
    anomaly::set_reporter(Box::new(PythonReporter));
    anomaly::set_anomaly_enabled(enabled, check_nan);
}

/// Whether anomaly detection is on.
#[pyfunction]
#[pyo3(signature = () -> "bool")]
pub(crate) fn is_anomaly_enabled() -> bool {
    anomaly::is_anomaly_enabled()
}

/// Whether anomaly detection checks backward results for NaN.
#[pyfunction]
#[pyo3(signature = () -> "bool")]
pub(crate) fn is_anomaly_check_nan_enabled() -> bool {
    anomaly::is_anomaly_check_nan_enabled()
}
