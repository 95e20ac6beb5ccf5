//! Fits `y = 2x - 1` with one `nn::Linear` and `optim::Sgd`, using ferrograd from another
//! crate: only its public API, and ndarray through `ferrograd::ndarray`.

use ferrograd::ndarray::Array2;
use ferrograd::nn::{self, Module};
use ferrograd::optim::{Optimizer, Sgd};
use ferrograd::Tensor;

fn main() -> ferrograd::Result<()> {
    ferrograd::manual_seed(0);
    let xs = Array2::from_shape_fn((16, 1), |(i, _)| i as f32 / 8.0 - 1.0);
    let ys = xs.mapv(|x| 2.0 * x - 1.0);
    let (x, y) = (Tensor::from_array(xs), Tensor::from_array(ys));
    let layer = nn::Linear::new(1, 1)?;
    let mut opt = Sgd::new(layer.parameters(), 0.1).momentum(0.9);
    for _ in 0..200 {
        opt.zero_grad()?;
        let loss = nn::mse_loss(&layer.forward(&x)?, &y)?;
        loss.backward(None, None, false)?;
        opt.step()?;
    }
    let w = layer.weight().to_vec::<f32>()?[0];
    let b = layer.bias().unwrap().to_vec::<f32>()?[0];
    println!("fitted y = {w:.4} x + {b:.4}");
    assert!((w - 2.0).abs() < 1e-3 && (b + 1.0).abs() < 1e-3);
    Ok(())
}
