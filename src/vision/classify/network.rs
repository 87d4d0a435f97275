//! One ONNX network loaded with tract, with plans sized for small batches.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::{Arc, Mutex};

use tract_onnx::prelude::*;

use super::ModelError;

type Plan = TypedRunnableModel<TypedModel>;

/// Batch sizes that get a plan of their own (see [`Classifier`](super::Classifier)). Larger batches
/// run in parts of this size: a network's activations for a batch of dozens of
/// crops outgrow the processor's caches, and one crop then costs more. Measured on
/// one core with the width-40 index model: 0.87–1.1 ms a crop in batches of 1 to 8
/// (a 4-card frame's is 8; one of 6 took 1.3), 1.3 ms in one of 24 and 1.4 ms in
/// one of 64; an overlapping row of 12 (about 160 crops) read in 291–303 ms in
/// parts of 8 against 357–414 ms in parts of 64, and a fanned hand of 16 in
/// 174–182 ms against 206–222 ms, with no change beyond the spread on frames of a
/// few cards (README, "Measured performance"). Sizes beyond the first
/// [`MAX_SIZED_PLANS`] run on the general plan.
pub(super) const MAX_SIZED_BATCH: usize = 8;
pub(super) const MAX_SIZED_PLANS: usize = 24;

/// One loaded ONNX network. It is optimised once for a batch of any size (`N`),
/// which also proves at load time that the file is usable. tract runs a plan
/// optimised for one concrete batch size faster (measured with the width-32 index
/// model, the model alone on a 4-card frame: 3.97 ms instead of 4.49), so the first
/// batch of each size builds such a plan, about 5 ms once, and later batches of
/// that size reuse it.
pub(super) struct Network {
    pub(super) plan: Plan,
    /// The decluttered model with a symbolic batch, to build sized plans from.
    typed: TypedModel,
    batch: Symbol,
    pub(super) sized: Mutex<HashMap<usize, Arc<Plan>>>,
    /// The shape of one input, `[3, H, W]`.
    input: [usize; 3],
    /// Logits per input (53 for the card readers).
    outputs: usize,
}

impl Network {
    pub(super) fn load(
        onnx: &[u8],
        input: [usize; 3],
        outputs: usize,
        source: &str,
    ) -> Result<Network, ModelError> {
        let load = |e: TractError| ModelError::Load {
            path: source.to_string(),
            message: format!("{e:#}"),
        };
        let mut model = tract_onnx::onnx()
            .model_for_read(&mut Cursor::new(onnx))
            .map_err(load)?;
        let batch = model.sym("N");
        let shape = [
            batch.to_dim(),
            input[0].to_dim(),
            input[1].to_dim(),
            input[2].to_dim(),
        ];
        model
            .set_input_fact(0, InferenceFact::dt_shape(f32::datum_type(), shape))
            .map_err(load)?;
        let typed = model
            .into_typed()
            .and_then(|m| m.into_decluttered())
            .map_err(load)?;
        let plan = typed
            .clone()
            .into_optimized()
            .and_then(|m| m.into_runnable())
            .map_err(load)?;
        Ok(Network {
            plan,
            typed,
            batch,
            sized: Mutex::new(HashMap::new()),
            input,
            outputs,
        })
    }

    /// Floats in one input.
    fn input_len(&self) -> usize {
        self.input.iter().product()
    }

    /// Runs the network on `n` inputs laid out one after another; returns `n ×
    /// outputs` logits.
    pub(super) fn logits(&self, data: &[f32], n: usize) -> Result<Vec<f32>, ModelError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let len = self.input_len();
        if data.len() != n * len {
            return Err(ModelError::Run(format!(
                "{} floats given for {n} inputs of {len}",
                data.len()
            )));
        }
        if n > MAX_SIZED_BATCH {
            // Parts of at most MAX_SIZED_BATCH inputs, each on its sized plan.
            let mut out = Vec::with_capacity(n * self.outputs);
            for chunk in data.chunks(MAX_SIZED_BATCH * len) {
                out.extend(self.logits(chunk, chunk.len() / len)?);
            }
            return Ok(out);
        }
        let [c, h, w] = self.input;
        let input = Tensor::from_shape(&[n, c, h, w], data)
            .map_err(|e| ModelError::Run(format!("{e:#}")))?;
        let out = match self.sized_plan(n) {
            Some(plan) => plan.run(tvec!(input.into())),
            None => self.plan.run(tvec!(input.into())),
        }
        .map_err(|e| ModelError::Run(format!("{e:#}")))?;
        let first = out
            .first()
            .ok_or_else(|| ModelError::Run("the model has no output".into()))?;
        let view = first
            .to_array_view::<f32>()
            .map_err(|e| ModelError::Run(format!("{e:#}")))?;
        if view.shape() != [n, self.outputs] {
            return Err(ModelError::Run(format!(
                "output shape {:?}, expected [{n}, {}]",
                view.shape(),
                self.outputs
            )));
        }
        Ok(view.iter().copied().collect())
    }

    /// The plan for batches of exactly `n`, built on first use; `None` when `n` is
    /// too large, the cache is full, or building fails (the general plan runs then).
    fn sized_plan(&self, n: usize) -> Option<Arc<Plan>> {
        if n > MAX_SIZED_BATCH {
            return None;
        }
        let mut cache = self.sized.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(plan) = cache.get(&n) {
            return Some(plan.clone());
        }
        if cache.len() >= MAX_SIZED_PLANS {
            return None;
        }
        let values = SymbolValues::default().with(&self.batch, n as i64);
        let plan = self
            .typed
            .concretize_dims(&values)
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .ok()?;
        let plan = Arc::new(plan);
        cache.insert(n, plan.clone());
        Some(plan)
    }
}
