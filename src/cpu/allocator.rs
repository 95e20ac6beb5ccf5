//! The heap allocator. With the `mimalloc` feature (on in the Python build) small blocks come
//! from mimalloc: every recorded op allocates a few (tensor, storage, node, small data) and
//! glibc's malloc cost a fifth of the op. Large blocks still come from the system allocator,
//! which maps and unmaps them, so freeing a big tensor shrinks the process at once (mimalloc
//! would keep the pages for a while). Without the feature, everything is the system's.

#[cfg(feature = "mimalloc")]
mod small_fast {
    use libmimalloc_sys as mi;
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::ffi::c_void;

    /// Blocks of at least this many bytes go to the system allocator.
    const LARGE: usize = 256 * 1024;

    /// The alignment every `mi_malloc` block has.
    const MI_ALIGN: usize = 16;

    /// mimalloc below [`LARGE`] bytes, the system allocator from there on.
    pub struct SmallFast;

    // SAFETY: each block is freed by the allocator that made it: the choice depends only on
    // the size, and Rust passes the same layout to `dealloc` as to `alloc`. Blocks whose
    // alignment `mi_malloc` does not guarantee take mimalloc's aligned entry points.
    unsafe impl GlobalAlloc for SmallFast {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            match (layout.size() < LARGE, layout.align() <= MI_ALIGN) {
                (true, true) => mi::mi_malloc(layout.size()) as *mut u8,
                (true, false) => mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8,
                (false, _) => System.alloc(layout),
            }
        }

        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            match (layout.size() < LARGE, layout.align() <= MI_ALIGN) {
                (true, true) => mi::mi_zalloc(layout.size()) as *mut u8,
                (true, false) => mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8,
                (false, _) => System.alloc_zeroed(layout),
            }
        }

        #[inline]
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            if layout.size() < LARGE {
                mi::mi_free(ptr as *mut c_void)
            } else {
                System.dealloc(ptr, layout)
            }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            match (layout.size() < LARGE, new_size < LARGE) {
                (true, true) => {
                    mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
                }
                (false, false) => System.realloc(ptr, layout, new_size),
                _ => {
                    // crossing the boundary: move the block to the other allocator
                    let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                    let new = self.alloc(new_layout);
                    if !new.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    new
                }
            }
        }
    }

    #[global_allocator]
    static GLOBAL: SmallFast = SmallFast;
}

/// Hands freed heap memory back to the operating system (after a large graph is freed, so the
/// process shrinks back to its size before the graph).
pub fn return_free_memory() {
    #[cfg(feature = "mimalloc")]
    {
        // SAFETY: mi_collect only releases memory mimalloc holds free; it is thread-safe.
        unsafe { libmimalloc_sys::mi_collect(true) };
    }
    #[cfg(all(not(feature = "mimalloc"), target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: glibc's malloc_trim only releases free memory; it is thread-safe.
        unsafe {
            malloc_trim(0);
        }
    }
}
