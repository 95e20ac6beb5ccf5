//! The orderings PyTorch's CPU kernels leave ties in. `sort` (unstable), `topk` and `mode` use
//! the C++ standard library's `std::sort`, `std::nth_element` and `std::partial_sort` (as
//! libstdc++ implements them: introsort with a median-of-three pivot, insertion sort below 16
//! elements, heap selection), and `kthvalue` PyTorch's own quickselect (Sedgewick's
//! partitioning). These are not stable: which of several equal elements comes first depends on
//! the exact sequence of comparisons and swaps, so the same algorithms are written here and
//! tied elements get PyTorch's indices.
//!
//! Every function takes a strict "comes before" predicate `less(a, b)` (which need not be a
//! strict weak order: NaN comparisons are whatever the predicate says).

/// Below this many elements introsort leaves a range to the final insertion sort.
const THRESHOLD: usize = 16;

/// `⌊log2 n⌋` for `n ≥ 1`.
fn floor_log2(n: usize) -> usize {
    (usize::BITS - 1 - n.leading_zeros()) as usize
}

/// Insertion sort of `v[lo..hi]`: each element moves left past those it comes before; one that
/// comes before the range's first element goes straight to the front.
fn insertion_sort<E: Copy>(v: &mut [E], lo: usize, hi: usize, less: &impl Fn(&E, &E) -> bool) {
    for i in lo + 1..hi {
        let val = v[i];
        if less(&val, &v[lo]) {
            v.copy_within(lo..i, lo + 1);
            v[lo] = val;
        } else {
            unguarded_insert(v, i, less);
        }
    }
}

/// Moves `v[i]` left until the element before it does not come after it (a smaller element
/// is known to exist to the left, so no bound check).
fn unguarded_insert<E: Copy>(v: &mut [E], i: usize, less: &impl Fn(&E, &E) -> bool) {
    let val = v[i];
    let mut j = i;
    while less(&val, &v[j - 1]) {
        v[j] = v[j - 1];
        j -= 1;
    }
    v[j] = val;
}

/// Puts the median of `v[a]`, `v[b]`, `v[c]` at `v[result]` (libstdc++'s order of tests).
fn median_to_first<E: Copy>(
    v: &mut [E],
    result: usize,
    a: usize,
    b: usize,
    c: usize,
    less: &impl Fn(&E, &E) -> bool,
) {
    let pick = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(result, pick);
}

/// Hoare partition of `v[first..last]` around the value at `pivot` (outside the range); returns
/// the start of the right part.
fn unguarded_partition<E: Copy>(
    v: &mut [E],
    mut first: usize,
    mut last: usize,
    pivot: usize,
    less: &impl Fn(&E, &E) -> bool,
) -> usize {
    loop {
        while less(&v[first], &v[pivot]) {
            first += 1;
        }
        last -= 1;
        while less(&v[pivot], &v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

/// The median of the first, middle and last elements moved to the front, then the rest
/// partitioned around it.
fn partition_pivot<E: Copy>(
    v: &mut [E],
    first: usize,
    last: usize,
    less: &impl Fn(&E, &E) -> bool,
) -> usize {
    let mid = first + (last - first) / 2;
    median_to_first(v, first, first + 1, mid, last - 1, less);
    unguarded_partition(v, first + 1, last, first, less)
}

/// Sifts `value` down from `hole` in the heap `v[first..first + len]` (a max-heap under `less`),
/// then back up (libstdc++'s `__adjust_heap`).
fn adjust_heap<E: Copy>(
    v: &mut [E],
    first: usize,
    mut hole: usize,
    len: usize,
    value: E,
    less: &impl Fn(&E, &E) -> bool,
) {
    let top = hole;
    let mut child = hole;
    while len > 2 && child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(&v[first + child], &v[first + child - 1]) {
            child -= 1;
        }
        v[first + hole] = v[first + child];
        hole = child;
    }
    if len.is_multiple_of(2) && len >= 2 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        v[first + hole] = v[first + child - 1];
        hole = child - 1;
    }
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(&v[first + parent], &value) {
            break;
        }
        v[first + hole] = v[first + parent];
        hole = parent;
    }
    v[first + hole] = value;
}

fn make_heap<E: Copy>(v: &mut [E], first: usize, last: usize, less: &impl Fn(&E, &E) -> bool) {
    let len = last - first;
    if len < 2 {
        return;
    }
    let mut parent = (len - 2) / 2;
    loop {
        let value = v[first + parent];
        adjust_heap(v, first, parent, len, value, less);
        if parent == 0 {
            return;
        }
        parent -= 1;
    }
}

/// Moves the heap's top to `result` and re-heaps the element that was there.
fn pop_heap<E: Copy>(
    v: &mut [E],
    first: usize,
    last: usize,
    result: usize,
    less: &impl Fn(&E, &E) -> bool,
) {
    let value = v[result];
    v[result] = v[first];
    adjust_heap(v, first, 0, last - first, value, less);
}

/// Keeps in `v[first..middle]` (a heap) the elements that come first of the whole range.
fn heap_select<E: Copy>(
    v: &mut [E],
    first: usize,
    middle: usize,
    last: usize,
    less: &impl Fn(&E, &E) -> bool,
) {
    make_heap(v, first, middle, less);
    for i in middle..last {
        if less(&v[i], &v[first]) {
            pop_heap(v, first, middle, i, less);
        }
    }
}

fn sort_heap<E: Copy>(v: &mut [E], first: usize, mut last: usize, less: &impl Fn(&E, &E) -> bool) {
    while last - first > 1 {
        last -= 1;
        pop_heap(v, first, last, last, less);
    }
}

/// `std::partial_sort(v.begin(), v.begin() + middle, v.end())`: the first `middle` elements
/// in order, the others in heap-selection order.
pub(crate) fn partial_sort<E: Copy>(v: &mut [E], middle: usize, less: &impl Fn(&E, &E) -> bool) {
    let last = v.len();
    if middle == 0 {
        return;
    }
    heap_select(v, 0, middle, last, less);
    sort_heap(v, 0, middle, less);
}

fn introsort_loop<E: Copy>(
    v: &mut [E],
    first: usize,
    mut last: usize,
    mut depth: usize,
    less: &impl Fn(&E, &E) -> bool,
) {
    while last - first > THRESHOLD {
        if depth == 0 {
            heap_select(v, first, last, last, less);
            sort_heap(v, first, last, less);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, less);
        introsort_loop(v, cut, last, depth, less);
        last = cut;
    }
}

/// `std::sort(v.begin(), v.begin() + len)`.
pub(crate) fn sort<E: Copy>(v: &mut [E], len: usize, less: &impl Fn(&E, &E) -> bool) {
    if len < 2 {
        return;
    }
    introsort_loop(v, 0, len, 2 * floor_log2(len), less);
    if len > THRESHOLD {
        insertion_sort(v, 0, THRESHOLD, less);
        for i in THRESHOLD..len {
            unguarded_insert(v, i, less);
        }
    } else {
        insertion_sort(v, 0, len, less);
    }
}

/// `std::nth_element(v.begin(), v.begin() + nth, v.end())`.
pub(crate) fn nth_element<E: Copy>(v: &mut [E], nth: usize, less: &impl Fn(&E, &E) -> bool) {
    let (mut first, mut last) = (0, v.len());
    if first == last || nth >= last {
        return;
    }
    let mut depth = 2 * floor_log2(last - first);
    while last - first > 3 {
        if depth == 0 {
            heap_select(v, first, nth + 1, last, less);
            v.swap(first, nth);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, less);
        if cut <= nth {
            first = cut;
        } else {
            last = cut;
        }
    }
    insertion_sort(v, first, last, less);
}

/// PyTorch's quickselect (`kthvalue`): after it, `v[k]` is the element of rank `k` under
/// `greater` (which says `a` comes after `b`), found by median-of-three pivots and Sedgewick's
/// partitioning.
pub(crate) fn quick_select<E: Copy>(v: &mut [E], k: usize, greater: &impl Fn(&E, &E) -> bool) {
    if v.is_empty() {
        return;
    }
    let (mut lo, mut hi) = (0usize, v.len() - 1);
    loop {
        if hi <= lo {
            return;
        }
        if hi == lo + 1 {
            if greater(&v[lo], &v[hi]) {
                v.swap(lo, hi);
            }
            return;
        }
        let mid = (lo + hi) / 2;
        v.swap(mid, lo + 1);
        if greater(&v[lo + 1], &v[hi]) {
            v.swap(lo + 1, hi);
        }
        if greater(&v[lo], &v[hi]) {
            v.swap(lo, hi);
        }
        if greater(&v[lo + 1], &v[lo]) {
            v.swap(lo + 1, lo);
        }
        let (mut i, mut j) = (lo + 1, hi);
        let pivot = v[lo];
        loop {
            i += 1;
            while greater(&pivot, &v[i]) {
                i += 1;
            }
            j -= 1;
            while greater(&v[j], &pivot) {
                j -= 1;
            }
            if j < i {
                break;
            }
            v.swap(i, j);
        }
        v.swap(lo, j);
        if j <= k {
            lo = i;
        }
        if j >= k {
            if j == 0 {
                return;
            }
            hi = j - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn the_orderings_sort() {
        let mut seed = 7;
        for n in [0usize, 1, 2, 3, 5, 16, 17, 40, 300] {
            let data: Vec<(i64, usize)> =
                (0..n).map(|i| ((lcg(&mut seed) % 5) as i64, i)).collect();
            let less = |a: &(i64, usize), b: &(i64, usize)| a.0 < b.0;
            let mut s = data.clone();
            sort(&mut s, n, &less);
            assert!(s.windows(2).all(|w| w[0].0 <= w[1].0));
            for k in 0..n {
                let mut t = data.clone();
                nth_element(&mut t, k, &less);
                let mut sorted: Vec<i64> = data.iter().map(|e| e.0).collect();
                sorted.sort();
                assert_eq!(t[k].0, sorted[k]);
                let mut q = data.clone();
                quick_select(&mut q, k, &|a: &(i64, usize), b: &(i64, usize)| a.0 > b.0);
                assert_eq!(q[k].0, sorted[k]);
                let mut p = data.clone();
                partial_sort(&mut p, k, &less);
                assert_eq!(
                    p[..k].iter().map(|e| e.0).collect::<Vec<_>>(),
                    sorted[..k].to_vec()
                );
            }
        }
    }
}
