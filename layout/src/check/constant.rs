//! An entry's constant (`const = ...`): of the entry's type, and fitting its wire type.

use core::ops::Range;

use super::Ctx;
use super::node::check_len_fits_wire;
use crate::model::{Const, Encoding, IntType, Node, Role, Type, Wire};
use crate::parse::{Sp, Table, Val};

/// An entry's role as its table states it: a constant (`const`, or a nil entry, whose one value
/// is a constant) or a field. Counts are found later, from `length_of`.
pub(super) fn role(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, node: &Node, name: &Sp<String>) -> Role {
    if matches!(node.ty, Type::Nil) {
        return Role::Const(Const::Nil);
    }
    let Some(v) = t.get("const") else {
        return Role::Field;
    };
    let span = v.span.clone();
    let constant = match (&node.ty, &v.value) {
        (Type::Bool, Val::Bool(b)) => Const::Bool(*b),
        (Type::Int(it), Val::Int(n)) => check_const_int_in_range(cx, file, span, it, *n),
        (Type::Float(w), Val::Float(f)) => check_const_float32_exact(cx, file, span, *w, *f),
        (Type::Float(_), Val::Int(n)) => Const::Float(*n as f64),
        (Type::Str(st), Val::Str(s)) => check_const_str_fits(cx, file, span, st.encoding, st.len, s),
        (Type::Bin(b), Val::Array(items)) => check_const_bin_bytes(cx, file, span, b.encoding, b.len, items),
        _ => {
            check_const_of_entry_type(cx, file, v, node, name);
            return Role::Field;
        }
    };
    Role::Const(constant)
}

/// Rule: a constant is of its entry's type (a bool's `true` or `false`, an integer, a number
/// for a float, a string, an array of bytes for a bin), and only scalar entries have one.
fn check_const_of_entry_type(cx: &mut Ctx<'_, '_>, file: usize, v: &Sp<Val>, node: &Node, name: &Sp<String>) {
    let expected = match node.ty {
        Type::Bool => "true or false",
        Type::Int(_) => "an integer",
        Type::Float(_) => "a number",
        Type::Str(_) => "a string",
        Type::Bin(_) => "an array of bytes",
        _ => {
            let message = format!("`const` does not apply to {} entries", node.wire_name_plain());
            cx.error(file, v.span.clone(), message);
            return;
        }
    };
    cx.error(
        file,
        v.span.clone(),
        format!(
            "constant of entry `{}` must be {expected}, found {}",
            name.value,
            v.value.kind()
        ),
    );
}

/// Rule: an integer constant is within the entry's bounds: its wire type's range, narrowed by
/// `min` and `max`.
fn check_const_int_in_range(cx: &mut Ctx<'_, '_>, file: usize, span: Range<usize>, it: &IntType, n: i128) -> Const {
    if n < it.min || n > it.max {
        let wire = it.encoding.wire().map_or("int", |w| w.name());
        cx.error(
            file,
            span,
            format!("constant {n} does not fit {wire} ({}..={})", it.min, it.max),
        );
    }
    Const::Int(n)
}

/// Rule: a float32 constant is exactly a float32: what is written is what is stated.
fn check_const_float32_exact(cx: &mut Ctx<'_, '_>, file: usize, span: Range<usize>, w: Wire, f: f64) -> Const {
    if w == Wire::Float32 && f64::from(f as f32) != f && !f.is_nan() {
        cx.error(file, span, format!("constant {f} is not exactly a float32"));
    }
    Const::Float(f)
}

/// Rule: a string constant's length fits its wire type (see [`check_len_fits_wire`]).
fn check_const_str_fits(
    cx: &mut Ctx<'_, '_>,
    file: usize,
    span: Range<usize>,
    enc: Encoding,
    fixed: Option<usize>,
    s: &str,
) -> Const {
    check_len_fits_wire(cx, file, span.clone(), enc, s.len(), "constant");
    check_const_len_is_fixed(cx, file, span, fixed, s.len());
    Const::Bytes(s.as_bytes().to_vec())
}

/// Rule: a constant of a string or byte string of fixed length (`len`) has that length.
fn check_const_len_is_fixed(cx: &mut Ctx<'_, '_>, file: usize, span: Range<usize>, fixed: Option<usize>, len: usize) {
    if let Some(fixed) = fixed
        && fixed != len
    {
        cx.error(
            file,
            span,
            format!("constant of {len} bytes does not have the fixed length, `len = {fixed}`"),
        );
    }
}

/// Rule: a bin constant is an array of bytes (0..=255), as many as its wire type holds.
fn check_const_bin_bytes(
    cx: &mut Ctx<'_, '_>,
    file: usize,
    span: Range<usize>,
    enc: Encoding,
    fixed: Option<usize>,
    items: &[Sp<Val>],
) -> Const {
    let mut bytes = Vec::new();
    for item in items {
        match item.value {
            Val::Int(b @ 0..=255) => bytes.push(b as u8),
            _ => cx.error(file, item.span.clone(), "a bin constant is an array of bytes (0..=255)"),
        }
    }
    check_len_fits_wire(cx, file, span.clone(), enc, bytes.len(), "constant");
    check_const_len_is_fixed(cx, file, span, fixed, bytes.len());
    Const::Bytes(bytes)
}

#[cfg(test)]
mod tests {
    use crate::check::testing::{at, problems};

    /// A record of one entry `a` whose node has the lines `node` (line 5 on).
    fn entry(node: &str) -> String {
        format!("[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\n{node}")
    }

    #[test]
    fn check_const_len_is_fixed() {
        let head = "[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = \"s\"\nlanguage = 3\n";
        let text = format!("{head}{}", entry("wire = \"str\"\nlen = 3\nconst = \"abcd\"\n"));
        assert_eq!(
            crate::check::testing::problems_in(&text),
            [at(
                12,
                9,
                "constant of 4 bytes does not have the fixed length, `len = 3`"
            )]
        );
        let text = format!("{head}{}", entry("wire = \"bin\"\nlen = 2\nconst = [1, 2]\n"));
        assert_eq!(crate::check::testing::problems_in(&text), []);
    }

    #[test]
    fn check_const_of_entry_type() {
        assert_eq!(
            problems(&entry("wire = \"int\"\nconst = 1.5\n")),
            [at(6, 9, "constant of entry `a` must be an integer, found a float")]
        );
        assert_eq!(
            problems(&entry("wire = \"bool\"\nconst = 1\n")),
            [at(
                6,
                9,
                "constant of entry `a` must be true or false, found an integer"
            )]
        );
        assert_eq!(
            problems(&entry("wire = \"float64\"\nconst = \"1\"\n")),
            [at(6, 9, "constant of entry `a` must be a number, found a string")]
        );
        assert_eq!(
            problems(&entry("wire = \"str\"\nconst = 1\n")),
            [at(6, 9, "constant of entry `a` must be a string, found an integer")]
        );
        assert_eq!(
            problems(&entry("wire = \"bin\"\nconst = \"ab\"\n")),
            [at(
                6,
                9,
                "constant of entry `a` must be an array of bytes, found a string"
            )]
        );
        assert_eq!(
            problems(&entry("wire = \"array\"\nelement = { wire = \"int\" }\nconst = [1]\n")),
            [at(7, 9, "`const` does not apply to array entries")]
        );
        assert_eq!(problems(&entry("wire = \"bool\"\nconst = true\n")), []);
        assert_eq!(problems(&entry("wire = \"float64\"\nconst = 1\n")), []);
    }

    #[test]
    fn check_const_int_in_range() {
        assert_eq!(
            problems(&entry("wire = \"fixint\"\nconst = 200\n")),
            [at(6, 9, "constant 200 does not fit fixint (0..=127)")]
        );
        assert_eq!(
            problems(&entry("wire = \"int\"\nmax = 10\nconst = 11\n")),
            [at(7, 9, "constant 11 does not fit int (-9223372036854775808..=10)")]
        );
        assert_eq!(problems(&entry("wire = \"fixint\"\nconst = 127\n")), []);
    }

    #[test]
    fn check_const_float32_exact() {
        assert_eq!(
            problems(&entry("wire = \"float32\"\nconst = 0.1\n")),
            [at(6, 9, "constant 0.1 is not exactly a float32")]
        );
        assert_eq!(problems(&entry("wire = \"float32\"\nconst = 0.5\n")), []);
        assert_eq!(problems(&entry("wire = \"float64\"\nconst = 0.1\n")), []);
    }

    #[test]
    fn check_const_str_fits() {
        assert_eq!(
            problems(&entry(
                "wire = \"fixstr\"\nconst = \"0123456789012345678901234567890123\"\n"
            )),
            [at(6, 9, "constant of 34 bytes does not fit fixstr (at most 31 bytes)")]
        );
        assert_eq!(problems(&entry("wire = \"str8\"\nconst = \"b2nd\"\n")), []);
    }

    #[test]
    fn check_const_bin_bytes() {
        assert_eq!(
            problems(&entry("wire = \"bin8\"\nconst = [1, 2, 300]\n")),
            [at(6, 16, "a bin constant is an array of bytes (0..=255)")]
        );
        assert_eq!(problems(&entry("wire = \"bin8\"\nconst = [1, 2, 255]\n")), []);
    }

    #[test]
    fn a_nil_entry_is_a_constant() {
        assert_eq!(problems(&entry("wire = \"nil\"\n")), []);
    }
}
