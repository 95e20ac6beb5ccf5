//! Grad mode: a per-thread switch that decides whether ops record the graph.

use std::cell::Cell;

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
    static INFERENCE_MODE: Cell<bool> = const { Cell::new(false) };
    static VIEW_REPLAY: Cell<bool> = const { Cell::new(false) };
}

/// Whether views made on this thread keep the view ops that made them, so that a view whose
/// history an in-place write made stale regenerates it by replaying those ops
/// (`ViewBackward0` ...) instead of by `as_strided` (PyTorch's `view_replay_enabled`; off by
/// default).
pub fn is_view_replay_enabled() -> bool {
    VIEW_REPLAY.with(|v| v.get())
}

/// Switches view replay (see [`is_view_replay_enabled`]) on or off for this thread; returns the
/// previous setting.
pub fn set_view_replay_enabled(enabled: bool) -> bool {
    VIEW_REPLAY.with(|v| v.replace(enabled))
}

/// Whether this thread is in inference mode (PyTorch's `InferenceMode`): tensors made in it are
/// inference tensors, which never record history and refuse some uses outside it.
pub fn is_inference_mode_enabled() -> bool {
    INFERENCE_MODE.with(|m| m.get())
}

/// Enters (`true`) or leaves inference mode on this thread, as PyTorch's
/// `inference_mode(enabled)`: grad mode is set to the opposite; returns the previous
/// (grad mode, inference mode) for [`restore_inference_mode`].
pub fn set_inference_mode(enabled: bool) -> (bool, bool) {
    let grad = set_grad_enabled(!enabled);
    (grad, INFERENCE_MODE.with(|m| m.replace(enabled)))
}

/// Restores what [`set_inference_mode`] returned.
pub fn restore_inference_mode((grad, inference): (bool, bool)) {
    set_grad_enabled(grad);
    INFERENCE_MODE.with(|m| m.set(inference));
}

/// Whether ops on this thread record autograd history.
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(|g| g.get())
}

/// Switches recording on or off for this thread; returns the previous setting.
pub fn set_grad_enabled(enabled: bool) -> bool {
    GRAD_ENABLED.with(|g| g.replace(enabled))
}

/// Restores the previous grad mode when dropped: `let _g = GradModeGuard::new(false);`.
pub struct GradModeGuard {
    previous: bool,
}

impl GradModeGuard {
    /// Sets grad mode to `enabled` until the guard is dropped.
    pub fn new(enabled: bool) -> Self {
        GradModeGuard {
            previous: set_grad_enabled(enabled),
        }
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        set_grad_enabled(self.previous);
    }
}

/// Runs `f` with grad mode off (Rust's `with torch.no_grad():`).
pub fn no_grad<R>(f: impl FnOnce() -> R) -> R {
    let _guard = GradModeGuard::new(false);
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_thread_and_restored() {
        assert!(is_grad_enabled());
        no_grad(|| {
            assert!(!is_grad_enabled());
            std::thread::spawn(|| assert!(is_grad_enabled()))
                .join()
                .unwrap();
        });
        assert!(is_grad_enabled());
    }
}
