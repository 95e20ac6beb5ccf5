//! Trains a small MLP to tell three interleaved spirals apart, in Rust only: the data made
//! with `ndarray`, `nn::Sequential` of `nn::Linear` and `nn::ReLU`, `nn::cross_entropy`, and
//! `optim::Adam`. Prints the loss as it falls and the final accuracy; exits with an error if
//! the model did not learn (CI runs it).
//!
//! ```sh
//! cargo run --release --example mlp
//! ```

use ferrograd::ndarray::{Array1, Array2};
use ferrograd::nn::{self, Module};
use ferrograd::optim::{Adam, Optimizer};
use ferrograd::{Result, Tensor};

/// `points` points on each of `classes` spiral arms, with a little deterministic jitter.
fn spirals(points: usize, classes: usize) -> (Tensor, Tensor) {
    let n = points * classes;
    let mut x = Array2::<f32>::zeros((n, 2));
    let mut y = Array1::<i64>::zeros(n);
    for c in 0..classes {
        for i in 0..points {
            let row = c * points + i;
            let r = i as f32 / points as f32;
            let jitter = 0.2 * ((row as f32 * 12.9898).sin() * 43758.545).fract();
            let angle = c as f32 * 4.0 + 4.0 * r + jitter;
            x[[row, 0]] = r * angle.sin();
            x[[row, 1]] = r * angle.cos();
            y[row] = c as i64;
        }
    }
    // owned, standard-layout arrays: their vectors become the tensors' storage, uncopied
    (Tensor::from_array(x), Tensor::from_array(y))
}

fn main() -> Result<()> {
    ferrograd::manual_seed(0);
    let (x, y) = spirals(100, 3);
    let model = nn::Sequential::new()
        .add(nn::Linear::new(2, 64)?)
        .add(nn::ReLU)
        .add(nn::Linear::new(64, 64)?)
        .add(nn::ReLU)
        .add(nn::Linear::new(64, 3)?);
    println!(
        "{} samples, {} parameters",
        x.shape()[0],
        model.num_parameters()
    );
    let mut opt = Adam::new(model.parameters(), 0.01);
    let start = std::time::Instant::now();
    let mut loss_value = f64::INFINITY;
    for step in 1..=400 {
        opt.zero_grad()?;
        let loss = nn::cross_entropy(&model.forward(&x)?, &y)?;
        loss.backward(None, None, false)?;
        opt.step()?;
        loss_value = loss.item()?.to_f64();
        if step % 50 == 0 || step == 1 {
            println!("step {step:4}  loss {loss_value:.4}");
        }
    }
    let predicted = ferrograd::no_grad(|| model.forward(&x)?.argmax(Some(1), false))?;
    let correct = predicted
        .to_array::<i64>()?
        .iter()
        .zip(y.to_array::<i64>()?.iter())
        .filter(|(p, t)| p == t)
        .count();
    let accuracy = correct as f64 / y.numel() as f64;
    println!(
        "accuracy {:.1}% after {:.2?}",
        100.0 * accuracy,
        start.elapsed()
    );
    if loss_value > 0.2 || accuracy < 0.95 {
        return Err(ferrograd::Error::runtime(format!(
            "the MLP did not learn the spirals (loss {loss_value:.4}, accuracy {accuracy:.3})"
        )));
    }
    Ok(())
}
