//! Derivatives of derivatives: `autograd::grad` with `create_graph` records the backward pass,
//! so its result can be differentiated again. Shows the second derivative of a scalar
//! function, a Hessian-vector product, and a gradient penalty trained through (as in WGAN-GP).
//! Checks every number against its closed form and exits with an error otherwise.
//!
//! ```sh
//! cargo run --example double_backward
//! ```

use ferrograd::autograd::{grad, GradOptions};
use ferrograd::{Error, Result, Tensor};

/// d outputs / d inputs, recording the computation so it can be differentiated again.
fn grad_with_graph(output: &Tensor, input: &Tensor) -> Result<Tensor> {
    let options = GradOptions {
        retain_graph: None,
        create_graph: true,
        allow_unused: false,
    };
    let grads = grad(
        std::slice::from_ref(output),
        std::slice::from_ref(input),
        &[None],
        options,
    )?;
    grads[0]
        .clone()
        .ok_or_else(|| Error::runtime("no gradient"))
}

/// Fails unless `got` is within 1e-9 of `want` everywhere.
fn check(what: &str, got: &Tensor, want: &[f64]) -> Result<()> {
    let got = got.to_vec::<f64>()?;
    println!("{what}: {got:?}");
    if got.len() != want.len() || got.iter().zip(want).any(|(g, w)| (g - w).abs() > 1e-9) {
        return Err(Error::runtime(format!("{what}: expected {want:?}")));
    }
    Ok(())
}

fn main() -> Result<()> {
    // y = sum(x³ + 2x²): dy/dx = 3x² + 4x, d²y/dx² = 6x + 4
    let x = Tensor::from_vec(vec![-1.0f64, 0.5, 2.0], &[3])?;
    x.set_requires_grad(true)?;
    let y = ((&x * &x)? * (&x + 2.0)?)?.sum()?;
    let dy = grad_with_graph(&y, &x)?;
    check("dy/dx", &dy, &[-1.0, 2.75, 20.0])?;
    let d2y = grad_with_graph(&dy.sum()?, &x)?;
    check("d2y/dx2", &d2y, &[-2.0, 7.0, 16.0])?;
    let d3y = grad_with_graph(&d2y.sum()?, &x)?;
    check("d3y/dx3", &d3y, &[6.0, 6.0, 6.0])?;

    // Hessian-vector product of f(w) = (w·w)² / 4 without forming the Hessian:
    // ∇f = (w·w) w, H v = (w·w) v + 2 (w·v) w
    let w = Tensor::from_vec(vec![1.0f64, 2.0], &[2])?;
    w.set_requires_grad(true)?;
    let v = Tensor::from_vec(vec![0.5f64, -1.0], &[2])?;
    let f = ((&w * &w)?.sum()?.pow_scalar(2i64)? / 4.0)?;
    let g = grad_with_graph(&f, &w)?;
    let hv = grad_with_graph(&(&g * &v)?.sum()?, &w)?;
    // w·w = 5, w·v = -1.5: 5 v - 3 w
    check(
        "Hessian-vector product",
        &hv,
        &[5.0 * 0.5 - 3.0, -5.0 - 6.0],
    )?;

    // a gradient penalty: loss = (|d out / d input| - 1)², trained through by backward
    let a = Tensor::from_vec(vec![3.0f64, 4.0], &[2])?;
    a.set_requires_grad(true)?;
    let input = Tensor::from_vec(vec![0.1f64, 0.2], &[2])?;
    input.set_requires_grad(true)?;
    let out = (&a * &input)?.sum()?;
    let slope = grad_with_graph(&out, &input)?; // = a
    let penalty = (slope.norm()? - 1.0)?.pow_scalar(2i64)?;
    penalty.backward(None, None, false)?;
    // d/da (|a| - 1)² = 2 (|a| - 1) a / |a| = 2·4·a/5
    check("penalty gradient", &a.grad().unwrap(), &[4.8, 6.4])?;
    Ok(())
}
