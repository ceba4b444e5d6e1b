//! Counts: an array or map whose number of elements is an earlier integer entry of its record
//! (`count = "n"` on the array, `length_of = ["a", ...]` on the count), both sides stated.

use super::record::CheckedEntry;
use super::{Ctx, hex};
use crate::model::{ArrayType, Count, Encoding, MapType, Node, Role, Type, Wire};
use crate::parse::Sp;

/// Checks the counts of a record whose entries all checked on their own, and records them in
/// the model: an array's or map's [`Count::Entry`], a count's [`Role::Count`].
pub(super) fn check_counts(cx: &mut Ctx<'_, '_>, entries: &mut [CheckedEntry]) {
    for i in 0..entries.len() {
        let Some(c) = check_count_refers_to_earlier_int(cx, entries, i) else {
            continue;
        };
        check_count_lists_counted(cx, entries, i, c);
        match &mut entries[i].entry.node.ty {
            Type::Array(a) => a.count = Count::Entry(c),
            Type::Map(m) => m.count = Count::Entry(c),
            _ => {}
        }
    }
    for c in 0..entries.len() {
        let Some(list) = entries[c].length_of.clone() else {
            continue;
        };
        if !check_length_of_on_int(cx, &entries[c], &list) {
            continue;
        }
        let of = check_length_of_lists_counted(cx, entries, c, &list);
        check_count_not_negative(cx, &entries[c]);
        check_count_not_constant(cx, &entries[c], &list);
        for &a in &of {
            check_count_fits_header(cx, &entries[c], &entries[a]);
            check_header_overflow_needed(cx, &entries[c], &entries[a]);
        }
        if entries[c].entry.is_field() {
            entries[c].entry.role = Role::Count { of };
        }
    }
    for e in entries.iter() {
        check_header_overflow_has_count(cx, e);
    }
    for i in 0..entries.len() {
        check_nested_counts_name_earlier_counts(cx, entries, i);
    }
}

/// Rule: a nested array's or map's `count = "n"` (language 3) names a count of the same record
/// that comes before the entry holding it: an integer entry whose `length_of` lists arrays or
/// maps of the record, so that its value is known on decode and on encode. Each nested array
/// or map then has exactly that many elements. Records the count in the model.
fn check_nested_counts_name_earlier_counts(cx: &mut Ctx<'_, '_>, entries: &mut [CheckedEntry], i: usize) {
    let nested = core::mem::take(&mut entries[i].nested);
    for n in &nested {
        let name = &n.name.value;
        let problem = match entries.iter().position(|e| e.entry.name == *name) {
            None => Some(format!("count `{name}` is not an entry of this record")),
            Some(c) if c >= i => Some(format!(
                "count `{name}` comes after this entry: a decoder must read the count before the elements"
            )),
            Some(c) if !matches!(entries[c].entry.role, Role::Count { .. }) => Some(format!(
                "count `{name}` of a nested array is not a count: list an array or map of this record in its `length_of`, whose length it then holds"
            )),
            Some(c) => {
                let header = set_nested_count(&mut entries[i].entry.node, n.file, &n.node, c);
                let max = int_max(&entries[c]).unwrap_or(0);
                match header.and_then(Encoding::wire) {
                    Some(w) if max > i128::from(w.max_len().unwrap_or(u64::MAX)) => Some(format!(
                        "{} states at most {} elements, but `{name}` allows up to {max}",
                        w.name(),
                        w.max_len().unwrap_or(0)
                    )),
                    _ => None,
                }
            }
        };
        if let Some(message) = problem {
            cx.error(n.file, n.name.span.clone(), message);
        }
    }
}

/// Sets the count of the array or map nested in `node` whose table is at `span` of `file`;
/// its header's encoding.
fn set_nested_count(node: &mut Node, file: usize, span: &core::ops::Range<usize>, c: usize) -> Option<Encoding> {
    let here = node.file == file && node.span == *span;
    match &mut node.ty {
        Type::Array(a) if here => {
            a.count = Count::Entry(c);
            Some(a.header)
        }
        Type::Map(m) if here => {
            m.count = Count::Entry(c);
            Some(m.header)
        }
        Type::Array(a) => set_nested_count(&mut a.element, file, span, c),
        Type::Map(m) => {
            set_nested_count(&mut m.key, file, span, c).or_else(|| set_nested_count(&mut m.value, file, span, c))
        }
        _ => None,
    }
}

/// The entry that counts `e`'s elements, once counts are recorded.
fn counted_by(e: &CheckedEntry) -> Option<usize> {
    match e.entry.node.ty {
        Type::Array(ArrayType {
            count: Count::Entry(c), ..
        })
        | Type::Map(MapType {
            count: Count::Entry(c), ..
        }) => Some(c),
        _ => None,
    }
}

/// The largest value an integer entry allows (`None` for other entries).
fn int_max(e: &CheckedEntry) -> Option<i128> {
    match &e.entry.node.ty {
        Type::Int(t) => Some(t.max),
        _ => None,
    }
}

/// Rule: `count = "n"` names an entry of the same record that comes before the counted one
/// (a decoder reads the count first) and is an integer. The count's index, when it does.
fn check_count_refers_to_earlier_int(cx: &mut Ctx<'_, '_>, entries: &[CheckedEntry], i: usize) -> Option<usize> {
    let count = entries[i].count.as_ref()?;
    let file = entries[i].file;
    let Some(c) = entries.iter().position(|e| e.entry.name == count.value) else {
        cx.error(
            file,
            count.span.clone(),
            format!("count `{}` is not an entry of this record", count.value),
        );
        return None;
    };
    if c >= i {
        cx.error(
            file,
            count.span.clone(),
            format!(
                "count `{}` comes after this entry: a decoder must read the count before the elements",
                count.value
            ),
        );
        return None;
    }
    if int_max(&entries[c]).is_none() {
        let wire = entries[c].entry.node.wire_name_plain();
        cx.error(
            file,
            count.span.clone(),
            format!("count `{}` is a {wire} entry, not an integer", count.value),
        );
        return None;
    }
    Some(c)
}

/// Rule: the count an entry names lists it in its `length_of`: both sides of a count state it.
fn check_count_lists_counted(cx: &mut Ctx<'_, '_>, entries: &[CheckedEntry], i: usize, c: usize) {
    let (counted, count) = (&entries[i].entry.name, &entries[c]);
    let listed = count
        .length_of
        .as_ref()
        .is_some_and(|l| l.value.iter().any(|n| n.value == *counted));
    if !listed {
        let span = count
            .length_of
            .as_ref()
            .map_or(count.entry.span.clone(), |l| l.span.clone());
        let name = &count.entry.name;
        cx.error(
            count.file,
            span,
            format!("`{counted}` is counted by `{name}`, but `length_of` of `{name}` does not list it"),
        );
    }
}

/// Rule: `length_of` applies to integer entries. Whether `count`, which has `list`, is one.
fn check_length_of_on_int(cx: &mut Ctx<'_, '_>, count: &CheckedEntry, list: &Sp<Vec<Sp<String>>>) -> bool {
    if int_max(count).is_some() {
        return true;
    }
    cx.error(
        count.file,
        list.span.clone(),
        format!(
            "`length_of` applies to integer entries; `{}` is not one",
            count.entry.name
        ),
    );
    false
}

/// Rule: each entry a count's `length_of` lists is an entry of the record that names the
/// count in its `count`. The listed entries that do, by index.
fn check_length_of_lists_counted(
    cx: &mut Ctx<'_, '_>,
    entries: &[CheckedEntry],
    c: usize,
    list: &Sp<Vec<Sp<String>>>,
) -> Vec<usize> {
    let (name, file) = (&entries[c].entry.name, entries[c].file);
    let mut of = Vec::new();
    for n in &list.value {
        let Some(a) = entries.iter().position(|e| e.entry.name == n.value) else {
            cx.error(
                file,
                n.span.clone(),
                format!("`{}` is not an entry of this record", n.value),
            );
            continue;
        };
        if counted_by(&entries[a]) == Some(c) {
            of.push(a);
            continue;
        }
        // An entry whose own `count` names this count, or no entry, has had its error already.
        let refused = entries[a]
            .count
            .as_ref()
            .is_some_and(|given| given.value == *name || !entries.iter().any(|e| e.entry.name == given.value));
        if !refused {
            cx.error(
                file,
                n.span.clone(),
                format!(
                    "`{}` does not have `count = \"{name}\"`, so `{name}` cannot hold its length",
                    n.value
                ),
            );
        }
    }
    of
}

/// Rule: a count cannot be negative: its `min` is 0 or more.
fn check_count_not_negative(cx: &mut Ctx<'_, '_>, count: &CheckedEntry) {
    if let Type::Int(t) = &count.entry.node.ty
        && t.min < 0
    {
        cx.error(
            count.file,
            count.entry.span.clone(),
            format!(
                "`{}` counts elements, so its min cannot be negative (it is {})",
                count.entry.name, t.min
            ),
        );
    }
}

/// Rule: a count is not a constant: its value follows from what it counts.
fn check_count_not_constant(cx: &mut Ctx<'_, '_>, count: &CheckedEntry, list: &Sp<Vec<Sp<String>>>) {
    if matches!(count.entry.role, Role::Const(_)) {
        cx.error(
            count.file,
            list.span.clone(),
            format!("`{}` is a constant and cannot also be a count", count.entry.name),
        );
    }
}

/// The fixed header of what a count counts, and whether it allows a fixarray header past 0x9f.
fn fixed_header(counted: &CheckedEntry) -> Option<(Wire, bool)> {
    let (header, overflow) = match &counted.entry.node.ty {
        Type::Array(t) => (t.header, t.header_overflow.is_some()),
        Type::Map(t) => (t.header, false),
        _ => return None,
    };
    match header {
        Encoding::Fixed(w) => Some((w, overflow)),
        Encoding::Canonical { .. } => None,
    }
}

/// Rule: a count's largest value fits the fixed header of what it counts: an array16 or map16
/// states at most 65535 elements; a fixarray header `0x90 + n` stays within fixarray's 0x9f,
/// or, where the layout really writes more (`allow_header_overflow`), within a byte.
fn check_count_fits_header(cx: &mut Ctx<'_, '_>, count: &CheckedEntry, counted: &CheckedEntry) {
    let (Some(max), Some((w, overflow))) = (int_max(count), fixed_header(counted)) else {
        return;
    };
    let name = &count.entry.name;
    let limit = w.max_len().unwrap_or(0);
    if w != Wire::FixArray {
        if max > i128::from(limit) {
            cx.error(
                counted.file,
                counted.entry.span.clone(),
                format!(
                    "{} states at most {limit} elements, but `{name}` allows up to {max}",
                    w.name()
                ),
            );
        }
        return;
    }
    let last = i128::from(w.markers().0) + max;
    if max <= i128::from(limit) {
        return;
    }
    if last > 0xff {
        cx.error(
            counted.file,
            counted.entry.span.clone(),
            format!(
                "array header 0x90 + {name} reaches {} for {name} = {max}, past a byte: lower `max` of `{name}` to at most 111",
                hex(last)
            ),
        );
    } else if !overflow {
        let span = counted
            .count
            .as_ref()
            .map_or(counted.entry.span.clone(), |c| c.span.clone());
        cx.error(
            counted.file,
            span,
            format!(
                "array header 0x90 + {name} reaches {} for {name} = {max}, past fixarray's 0x9f, which is not msgpack; if the layout really writes it (c-blosc2 writes 0xa0 for 16 dimensions), say why in `allow_header_overflow`",
                hex(last)
            ),
        );
    }
}

/// Rule: `allow_header_overflow` is there only when needed: when the count can take a fixarray
/// header past 0x9f.
fn check_header_overflow_needed(cx: &mut Ctx<'_, '_>, count: &CheckedEntry, counted: &CheckedEntry) {
    let (Some(max), Some((w, true))) = (int_max(count), fixed_header(counted)) else {
        return;
    };
    if w == Wire::FixArray && max <= i128::from(w.max_len().unwrap_or(0)) {
        cx.error(
            counted.file,
            counted.entry.span.clone(),
            format!(
                "`allow_header_overflow` is not needed: 0x90 + {} stays within fixarray (max {max})",
                count.entry.name
            ),
        );
    }
}

/// Rule: `allow_header_overflow` applies to a fixarray whose count is an earlier entry, whose
/// `max` says how far the header goes.
fn check_header_overflow_has_count(cx: &mut Ctx<'_, '_>, e: &CheckedEntry) {
    if let Type::Array(a) = &e.entry.node.ty
        && a.header_overflow.is_some()
        && counted_by(e).is_none()
    {
        cx.error(
            e.file,
            e.entry.span.clone(),
            format!(
                "`allow_header_overflow` applies to a fixarray whose count is an earlier entry; `{}` has none",
                e.entry.name
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::check::testing::{at, problems};

    /// A fixarray container with the entries `entries`, one `[[entry]]` per item.
    fn record(entries: &[&str]) -> String {
        let mut body = String::from("[container]\nwire = \"fixarray\"\n");
        for e in entries {
            body.push_str("[[entry]]\n");
            body.push_str(e);
        }
        body
    }

    /// A count of at most 15 (lines 4 to 7 when it is the first entry).
    const N: &str = "name = \"n\"\nwire = \"fixint\"\nmax = 15\nlength_of = [\"a\"]\n";
    /// An array counted by `n`.
    const A: &str = "name = \"a\"\nwire = \"fixarray\"\ncount = \"n\"\nelement = { wire = \"int\" }\n";

    #[test]
    fn a_count_and_its_array_check() {
        // Line 1 [container], 2 wire, 3 [[entry]] n (4-7), 8 [[entry]] a (9-12).
        assert_eq!(problems(&record(&[N, A])), []);
    }

    #[test]
    fn check_count_refers_to_earlier_int() {
        // `m` lists `a`, whose count names no entry: only that is reported.
        assert_eq!(
            problems(&record(&[&N.replace("\"n\"", "\"m\""), A])),
            [at(11, 9, "count `n` is not an entry of this record")]
        );
        // `a` before `n`: line 3 [[entry]] a (4-7), 8 [[entry]] n (9-12).
        assert_eq!(
            problems(&record(&[A, N])),
            [at(
                6,
                9,
                "count `n` comes after this entry: a decoder must read the count before the elements"
            )]
        );
        // A str `n` (4-6), then `a` (7-11).
        let s = "name = \"n\"\nwire = \"str\"\nlength_of = [\"a\"]\n";
        assert_eq!(
            problems(&record(&[s, A])),
            [
                at(6, 13, "`length_of` applies to integer entries; `n` is not one"),
                at(10, 9, "count `n` is a str entry, not an integer"),
            ]
        );
    }

    #[test]
    fn check_count_lists_counted() {
        let n = "name = \"n\"\nwire = \"fixint\"\nmax = 15\n";
        assert_eq!(
            problems(&record(&[n, A])),
            [at(
                3,
                1,
                "`a` is counted by `n`, but `length_of` of `n` does not list it"
            )]
        );
        let n = "name = \"n\"\nwire = \"fixint\"\nmax = 15\nlength_of = []\n";
        assert_eq!(
            problems(&record(&[n, A])),
            [at(
                7,
                13,
                "`a` is counted by `n`, but `length_of` of `n` does not list it"
            )]
        );
    }

    #[test]
    fn check_length_of_on_int() {
        let n = "name = \"n\"\nwire = \"bool\"\nlength_of = [\"a\"]\n";
        let a = "name = \"a\"\nwire = \"fixarray\"\nelement = { wire = \"int\" }\n";
        assert_eq!(
            problems(&record(&[n, a])),
            [at(6, 13, "`length_of` applies to integer entries; `n` is not one")]
        );
    }

    #[test]
    fn check_length_of_lists_counted() {
        let a = "name = \"a\"\nwire = \"fixarray\"\nelement = { wire = \"int\" }\n";
        assert_eq!(
            problems(&record(&[N, a])),
            [at(
                7,
                14,
                "`a` does not have `count = \"n\"`, so `n` cannot hold its length"
            )]
        );
        let n = N.replace("[\"a\"]", "[\"a\", \"zz\"]");
        assert_eq!(
            problems(&record(&[&n, A])),
            [at(7, 19, "`zz` is not an entry of this record")]
        );
    }

    #[test]
    fn check_count_not_negative() {
        let n = "name = \"n\"\nwire = \"int\"\nmin = -1\nmax = 15\nlength_of = [\"a\"]\n";
        assert_eq!(
            problems(&record(&[n, A])),
            [at(
                3,
                1,
                "`n` counts elements, so its min cannot be negative (it is -1)"
            )]
        );
        let n = "name = \"n\"\nwire = \"int\"\nmin = 0\nmax = 15\nlength_of = [\"a\"]\n";
        assert_eq!(problems(&record(&[n, A])), []);
    }

    #[test]
    fn check_count_not_constant() {
        let n = "name = \"n\"\nwire = \"fixint\"\nmax = 15\nconst = 3\nlength_of = [\"a\"]\n";
        assert_eq!(
            problems(&record(&[n, A])),
            [at(8, 13, "`n` is a constant and cannot also be a count")]
        );
    }

    #[test]
    fn check_nested_counts_name_earlier_counts() {
        use crate::check::testing::problems3;
        // Lines 3..=7 `n` (a count of `a`), 8..=12 `a`, 13.. `grid`, its element on line 16.
        let body = |max: u32, inner: &str| {
            format!(
                "[container]\nwire = \"array\"\n[[entry]]\nname = \"n\"\nwire = \"int\"\nmin = 0\nmax = {max}\nlength_of = [\"a\"]\n[[entry]]\nname = \"a\"\nwire = \"array\"\ncount = \"n\"\nelement = {{ wire = \"int\" }}\n[[entry]]\nname = \"grid\"\nwire = \"array\"\nelement = {{ wire = \"{inner}\", count = \"n\", element = {{ wire = \"int\" }} }}\n"
            )
        };
        assert_eq!(problems3(&body(8, "array")), []);
        assert_eq!(
            problems3(&body(16, "fixarray")),
            [at(
                17,
                40,
                "fixarray states at most 15 elements, but `n` allows up to 16"
            )]
        );
        assert_eq!(
            problems3(&body(8, "array").replace("count = \"n\", element", "count = \"m\", element")),
            [at(17, 37, "count `m` is not an entry of this record")]
        );
        // `a` is no count: its `length_of` is not there.
        let plain = body(8, "array")
            .replace("length_of = [\"a\"]\n", "")
            .replace("count = \"n\"\nelement", "element");
        assert_eq!(
            problems3(&plain),
            [at(
                15,
                37,
                "count `n` of a nested array is not a count: list an array or map of this record in its `length_of`, whose length it then holds"
            )]
        );
        // Language 2 refused it; it had been read as no count at all.
        assert_eq!(
            problems(&body(8, "array")),
            [at(
                17,
                37,
                "a nested array's `count` is language 3: state `language = 3` in [schema]"
            )]
        );
        // A single value has no entries to count its arrays.
        assert_eq!(
            problems3("[value]\nwire = \"array\"\ncount = \"n\"\nelement = { wire = \"int\" }\n"),
            [at(
                3,
                9,
                "count `n` is not an entry: a single value has no entries to count it"
            )]
        );
    }

    #[test]
    fn check_count_fits_header() {
        // Line 3 [[entry]] n (4-7), 8 [[entry]] a (9-12): `count = "n"` on line 11.
        let n = |max: u32| N.replace("max = 15", &format!("max = {max}"));
        assert_eq!(
            problems(&record(&[&n(16), A])),
            [at(
                11,
                9,
                "array header 0x90 + n reaches 0xa0 for n = 16, past fixarray's 0x9f, which is not msgpack; if the layout really writes it (c-blosc2 writes 0xa0 for 16 dimensions), say why in `allow_header_overflow`"
            )]
        );
        let overflow = format!("{A}allow_header_overflow = \"c-blosc2 writes it\"\n");
        assert_eq!(
            problems(&record(&[&n(127), &overflow])),
            [at(
                8,
                1,
                "array header 0x90 + n reaches 0x10f for n = 127, past a byte: lower `max` of `n` to at most 111"
            )]
        );
        assert_eq!(problems(&record(&[&n(111), &overflow])), []);
        assert_eq!(problems(&record(&[&n(15), A])), []);
        // A uint32 count (4-6) of an array16 (7-11).
        let n32 = "name = \"n\"\nwire = \"uint32\"\nlength_of = [\"a\"]\n";
        let a16 = A.replace("wire = \"fixarray\"", "wire = \"array16\"");
        assert_eq!(
            problems(&record(&[n32, &a16])),
            [at(
                7,
                1,
                "array16 states at most 65535 elements, but `n` allows up to 4294967295"
            )]
        );
        let n16 = "name = \"n\"\nwire = \"uint16\"\nlength_of = [\"a\"]\n";
        assert_eq!(problems(&record(&[n16, &a16])), []);
    }

    #[test]
    fn check_header_overflow_needed() {
        let n = N.replace("max = 15", "max = 8");
        let overflow = format!("{A}allow_header_overflow = \"c-blosc2 writes it\"\n");
        assert_eq!(
            problems(&record(&[&n, &overflow])),
            [at(
                8,
                1,
                "`allow_header_overflow` is not needed: 0x90 + n stays within fixarray (max 8)"
            )]
        );
        assert_eq!(problems(&record(&[&N.replace("max = 15", "max = 16"), &overflow])), []);
    }

    #[test]
    fn check_header_overflow_has_count() {
        let a = "name = \"a\"\nwire = \"fixarray\"\nelement = { wire = \"int\" }\nallow_header_overflow = \"why\"\n";
        assert_eq!(
            problems(&record(&[a])),
            [at(
                3,
                1,
                "`allow_header_overflow` applies to a fixarray whose count is an earlier entry; `a` has none"
            )]
        );
        assert_eq!(
            problems(&record(&[a.replace("allow_header_overflow = \"why\"\n", "").as_str()])),
            []
        );
    }
}
