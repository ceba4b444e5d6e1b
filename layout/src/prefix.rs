//! The fixed prefix of a layout: the bytes it accepts at each offset before the first byte whose
//! meaning depends on a value. Dispatch tells layouts stored under one name apart with it.

use crate::model::{Const, Count, Encoding, Layout, Node, Record, Role, Type, Wire};

/// Appends the prefix of `node` to `out`; returns false once a byte depends on a value.
/// `role` is the node's entry role, when it is an entry.
pub(crate) fn node(layout: &Layout, node: &Node, role: Option<&Role>, out: &mut Vec<(u8, u8)>) -> bool {
    let exact = |out: &mut Vec<(u8, u8)>, bytes: &[u8]| out.extend(bytes.iter().map(|&b| (b, b)));
    match &node.ty {
        Type::Nil => {
            exact(out, &[0xc0]);
            true
        }
        Type::Bool => {
            match role {
                Some(Role::Const(Const::Bool(b))) => exact(out, &[if *b { 0xc3 } else { 0xc2 }]),
                _ => out.push((0xc2, 0xc3)),
            }
            true
        }
        Type::Int(t) => match t.encoding {
            Encoding::Fixed(w) => {
                let value = match role {
                    Some(Role::Const(Const::Int(v))) => Some(*v),
                    _ => None,
                };
                match (w.marker(), value) {
                    (None, Some(v)) => exact(out, &[v as u8]),
                    (None, None) => out.push((t.min as u8, t.max as u8)),
                    (Some(m), Some(v)) => {
                        exact(out, &[m]);
                        exact(out, &v.to_be_bytes()[16 - w.width()..]);
                    }
                    (Some(m), None) => {
                        exact(out, &[m]);
                        out.extend(core::iter::repeat_n((0, 0xff), w.width()));
                    }
                }
                true
            }
            Encoding::Canonical { .. } => match role {
                Some(Role::Const(Const::Int(v))) if (0..=0x7f).contains(v) => {
                    exact(out, &[*v as u8]);
                    true
                }
                _ => false,
            },
        },
        Type::Float(w) => {
            exact(out, &[w.marker().unwrap_or(0)]);
            match role {
                Some(Role::Const(Const::Float(f))) => {
                    if *w == Wire::Float32 {
                        exact(out, &(*f as f32).to_be_bytes());
                    } else {
                        exact(out, &f.to_be_bytes());
                    }
                }
                _ => out.extend(core::iter::repeat_n((0, 0xff), w.width())),
            }
            true
        }
        Type::Str(t) => bytes(t.encoding, role, out),
        Type::Bin(e) => bytes(*e, role, out),
        Type::Ext(t) => {
            if let Encoding::Fixed(w) = t.encoding {
                exact(out, &[w.marker().unwrap_or(0)]);
            }
            false
        }
        Type::Array(a) => {
            if let Encoding::Fixed(w) = a.header {
                header(layout, w, &a.count, out);
            }
            false
        }
        Type::Map(m) => {
            if let Encoding::Fixed(w) = m.header {
                header(layout, w, &m.count, out);
            }
            false
        }
        Type::Record(r) => record(layout, r, out),
        Type::Ref(i) => layout.types.get(*i).is_some_and(|t| record(layout, &t.record, out)),
    }
}

fn bytes(encoding: Encoding, role: Option<&Role>, out: &mut Vec<(u8, u8)>) -> bool {
    match (encoding, role) {
        (Encoding::Fixed(w), Some(Role::Const(Const::Bytes(b)))) => {
            match w.marker() {
                Some(m) => {
                    out.push((m, m));
                    let len = (b.len() as u64).to_be_bytes();
                    out.extend(len[8 - w.width()..].iter().map(|&x| (x, x)));
                }
                None => {
                    let m = w.markers().0.wrapping_add(b.len() as u8);
                    out.push((m, m));
                }
            }
            out.extend(b.iter().map(|&x| (x, x)));
            true
        }
        (Encoding::Fixed(w), _) => {
            match w.marker() {
                Some(m) => {
                    out.push((m, m));
                    out.extend(core::iter::repeat_n((0, 0xff), w.width()));
                }
                None => out.push(w.markers()),
            }
            false
        }
        (Encoding::Canonical { .. }, _) => false,
    }
}

fn header(layout: &Layout, w: Wire, count: &Count, out: &mut Vec<(u8, u8)>) {
    let _ = layout;
    match w.marker() {
        Some(m) => out.push((m, m)),
        None => {
            let base = w.markers().0;
            match count {
                Count::Fixed(n) => {
                    let b = base.wrapping_add(*n as u8);
                    out.push((b, b));
                }
                _ => out.push((base, w.markers().1)),
            }
        }
    }
}

fn record(layout: &Layout, r: &Record, out: &mut Vec<(u8, u8)>) -> bool {
    match r.header {
        Encoding::Fixed(w) => match w.marker() {
            Some(m) => {
                out.push((m, m));
                let (lo, hi) = (r.required as u64, r.entries.len() as u64);
                let (lo, hi) = (lo.to_be_bytes(), hi.to_be_bytes());
                for i in 8 - w.width()..8 {
                    out.push((lo[i].min(hi[i]), lo[i].max(hi[i])));
                }
            }
            None => {
                let base = w.markers().0;
                out.push((base + r.required as u8, base + r.entries.len() as u8));
            }
        },
        Encoding::Canonical { .. } => return false,
    }
    for e in &r.entries {
        if let Some(k) = &e.key {
            let m = 0xa0u8.wrapping_add(k.len() as u8);
            if k.len() > 31 {
                return false;
            }
            out.push((m, m));
            out.extend(k.bytes().map(|b| (b, b)));
        }
        if !node(layout, &e.node, Some(&e.role), out) {
            // A count's value bounds the header of what it counts.
            return false;
        }
        if let (Role::Count { of }, Type::Int(t)) = (&e.role, &e.node.ty)
            && let Some(last) = out.last_mut()
            && t.encoding == Encoding::Fixed(Wire::PosFixInt)
        {
            *last = (t.min.clamp(0, 0x7f) as u8, t.max.clamp(0, 0x7f) as u8);
            // The first counted array's header follows directly when it comes next.
            if let Some(&a) = of.first()
                && let Type::Array(arr) = &r.entries[a].node.ty
                && arr.header == Encoding::Fixed(Wire::FixArray)
                && r.entries.iter().position(|x| std::ptr::eq(x, e)).map(|i| i + 1) == Some(a)
            {
                let lo = 0x90u8.saturating_add(t.min.clamp(0, 0x6f) as u8);
                let hi = 0x90u8.saturating_add(t.max.clamp(0, 0x6f) as u8);
                out.push((lo, hi));
                return false;
            }
        }
    }
    true
}
