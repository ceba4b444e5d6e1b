//! Stable sorting by an integer key, through one sort of `(key, index)` pairs.
//!
//! Every `sort_by_key` with its own element type and closure compiles its own copy of the
//! standard library's sort (about 3,000 lines of LLVM IR each). This crate is compiled into every
//! build that uses the attribute, so its sorts share one.

/// Sorts `items` by `key`, keeping items with equal keys in their order.
pub(crate) fn sort_by_key<T>(items: &mut Vec<T>, key: &dyn Fn(&T) -> i128) {
    let mut order: Vec<(i128, usize)> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        order.push((key(item), i));
    }
    // The index breaks ties, so the unstable sort keeps equal keys in order.
    order.sort_unstable();
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    for (_, i) in order {
        if let Some(item) = slots[i].take() {
            items.push(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_key_and_keeps_equal_keys_in_order() {
        let mut v = vec![(3, 'a'), (-1, 'b'), (3, 'c'), (0, 'd'), (-1, 'e')];
        sort_by_key(&mut v, &|&(k, _)| i128::from(k));
        assert_eq!(v, [(-1, 'b'), (-1, 'e'), (0, 'd'), (3, 'a'), (3, 'c')]);
        let mut empty: Vec<u8> = Vec::new();
        sort_by_key(&mut empty, &|&b| i128::from(b));
        assert!(empty.is_empty());
    }
}
