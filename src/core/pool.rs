//! Recycles large element buffers.
//!
//! A fresh multi-megabyte vector comes from `mmap`: the kernel zero-fills it page by page on first
//! touch, which costs more than a fast elementwise kernel itself. Storages of at least
//! [`MIN_BYTES`] hand their vector back here when dropped, and kernels that overwrite every
//! element of their output take one of the same length instead of allocating. Like glibc's own
//! free lists it keeps little: buffers of at most [`MAX_BUFFER_BYTES`], at most [`MAX_BUFFERS`]
//! of them and [`MAX_BYTES`] in all, so freeing a big tensor still returns its memory to the OS;
//! [`clear`] empties it (done after a large graph is freed).
//!
//! When a new buffer does not fit, the buffers offered longest ago make room for it: the pool
//! holds the sizes the program uses now. (Kept first-come, a pool filled by one workload's
//! sizes turned every large buffer of the next one away, and each of its ops paid for fresh
//! pages: 3-4x slower than the same work in a fresh process.)

use super::buffer::{Buffer, BufferElement};
use parking_lot::Mutex;

/// Buffers smaller than this are left to the allocator, which serves them from its free lists
/// (from 128 KiB up glibc maps fresh, page-faulting memory for each one).
pub const MIN_BYTES: usize = 64 << 10;
/// Larger buffers go straight back to the OS (glibc's largest dynamic mmap threshold).
pub const MAX_BUFFER_BYTES: usize = 32 << 20;
/// At most this many buffers wait for reuse.
pub const MAX_BUFFERS: usize = 32;
/// At most this many bytes wait for reuse.
pub const MAX_BYTES: usize = 64 << 20;

static POOL: Mutex<Vec<Buffer>> = Mutex::new(Vec::new());

fn bytes(b: &Buffer) -> usize {
    b.byte_len()
}

/// A pooled vector that held exactly `n` elements, if there is one.
fn reuse<T: BufferElement>(n: usize) -> Option<Vec<T>> {
    if n * std::mem::size_of::<T>() < MIN_BYTES {
        return None;
    }
    let mut pool = POOL.lock();
    let hit = pool
        .iter()
        .rposition(|b| b.dtype() == T::DTYPE && b.len() == n)?;
    T::take_vec(pool.remove(hit))
}

/// A vector of exactly `n` elements whose values are unspecified (zeros or a dead tensor's
/// values): callers overwrite every element.
pub fn buffer<T: BufferElement + Default>(n: usize) -> Vec<T> {
    reuse(n).unwrap_or_else(|| vec![T::default(); n])
}

/// An empty vector with room for `n` elements, for callers that fill its spare capacity.
pub fn with_capacity<T: BufferElement>(n: usize) -> Vec<T> {
    match reuse(n) {
        Some(mut v) => {
            v.clear();
            v
        }
        None => Vec::with_capacity(n),
    }
}

/// Offers a dropped storage's buffer for reuse (kept only if large and the pool has room).
pub fn recycle(buffer: Buffer) {
    let size = bytes(&buffer);
    if !(MIN_BYTES..=MAX_BUFFER_BYTES).contains(&size) || buffer.is_foreign() {
        return;
    }
    let mut evicted = Vec::new();
    {
        let mut pool = POOL.lock();
        let mut held: usize = pool.iter().map(bytes).sum();
        // the oldest buffers make room (oldest first: the pool is in the order of offers)
        while !pool.is_empty() && (pool.len() >= MAX_BUFFERS || held + size > MAX_BYTES) {
            let old = pool.remove(0);
            held -= bytes(&old);
            evicted.push(old);
        }
        pool.push(buffer);
    }
    drop(evicted); // returned to the allocator outside the lock
}

/// Returns every pooled buffer to the allocator.
pub fn clear() {
    let drained = std::mem::take(&mut *POOL.lock());
    drop(drained);
}

/// Bytes currently held for reuse.
pub fn held_bytes() -> usize {
    POOL.lock().iter().map(bytes).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pool is global: its tests take turns.
    static TURN: Mutex<()> = Mutex::new(());

    #[test]
    fn a_dropped_large_buffer_is_reused_and_small_ones_are_not_kept() {
        let _turn = TURN.lock();
        clear();
        let n = MIN_BYTES / 4;
        let v = buffer::<f32>(n);
        let ptr = v.as_ptr();
        recycle(Buffer::F32(v));
        recycle(Buffer::F32(vec![0.0; 8]));
        assert!(held_bytes() >= n * 4);
        let other = buffer::<f64>(n / 2);
        assert!(
            other.as_ptr().cast::<f32>() != ptr,
            "another dtype never reuses it"
        );
        let again = buffer::<f32>(n);
        assert_eq!(again.as_ptr(), ptr);
    }

    #[test]
    fn new_sizes_push_out_the_oldest_buffers() {
        let _turn = TURN.lock();
        clear();
        let small = MIN_BYTES / 4;
        for _ in 0..MAX_BUFFERS {
            recycle(Buffer::F32(vec![0.0; small]));
        }
        let big = MAX_BUFFER_BYTES / 4;
        let v = vec![1.0f32; big];
        let ptr = v.as_ptr();
        recycle(Buffer::F32(v));
        assert!(held_bytes() <= MAX_BYTES);
        let again = buffer::<f32>(big);
        assert_eq!(again.as_ptr(), ptr, "the newest size is kept");
        clear();
    }
}
